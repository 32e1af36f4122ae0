import type { Catalog } from "./catalog-en.ts";

/**
 * The German catalog (`de`). Where Axe API answers the same message in German, these are its
 * words (its validator's catalog, validatorjs' `de`: "Das :attribute Feld muss ausgefüllt
 * sein."), so teams moving from Axe keep their messages; a second sentence adds what Axe's does
 * not say (the allowed values, the date form).
 */
export const de: Catalog = {
  "validation.required": "Das {field} Feld muss ausgefüllt sein.",
  "validation.readOnly": "Das {field} Feld ist schreibgeschützt.",
  "validation.notAllowed": "Das {field} Feld ist nicht erlaubt.",
  "validation.string": "Das {field} Feld muss ein Satz sein.",
  "validation.integer": "Das {field} Feld muss eine ganze Zahl sein.",
  "validation.number": "Das {field} Feld muss eine Zahl sein.",
  "validation.boolean": "Das {field} Feld muss true oder false sein.",
  "validation.date":
    "Das {field} Feld muss ein gültiges Datum sein. Erwartet wird ISO 8601, z. B. 2026-01-02T03:04:05.678Z.",
  "validation.array": "Das {field} Feld muss ein Array sein.",
  "validation.object": "Das {field} Feld muss ein Objekt sein.",
  "validation.email": "Das {field} Format ist ungültig.",
  "validation.nonempty": "Das {field} Feld darf nicht leer sein.",
  "validation.enum": "Der gewählte Wert für {field} ist ungültig. Erlaubt sind: {allowed}.",
  "validation.invalid": "Das {field} Feld ist ungültig: {reason}.",
  "validation.unprintable": "Das {field} Feld ist ungültig.",
  "validation.shape": "Das {field} Feld {problem}.",
  "validation.foreignKey": "Das {field} Feld muss auf einen vorhandenen Datensatz von {model} verweisen.",
  "validation.more":
    "Weitere Fehler wurden nicht aufgeführt (höchstens {max} werden es); beheben Sie diese und senden Sie den Body erneut.",
  "shape.dollarKey": 'hat einen Schlüssel "{key}", der mit "$" beginnt',
  "shape.dotKey": 'hat einen Schlüssel "{key}", der "." enthält',
  "shape.nulKey": "hat einen Schlüssel mit einem NUL-Zeichen",
  "shape.loneSurrogate":
    "enthält Text, der kein gültiges Unicode ist: ein einzelnes UTF-16-Surrogat (\\ud800 bis \\udfff) ohne sein Gegenstück",
  "shape.infinite": "enthält eine zu große Zahl",
  "shape.unsafeInteger": "enthält eine ganze Zahl jenseits von ±9007199254740991, die an Genauigkeit verlieren würde",
  "shape.tooDeep": "ist tiefer als {max} Ebenen verschachtelt",
  "shape.stringTooLong": "darf maximal {max} Zeichen haben",
  "shape.nestedStringTooLong": "enthält eine Zeichenkette, die länger als {max} Zeichen ist",
  "record.notFound": "Der Datensatz wurde in {model} nicht gefunden.",
  "record.changed": "Der Datensatz wurde geändert: If-Match entspricht nicht seinem aktuellen ETag.",
  "record.unchanged":
    "Der Datensatz liegt noch in der Version vor, die If-None-Match nennt (oder If-None-Match ist *, und er existiert): nichts wurde geschrieben.",
  "record.duplicate": "Der Wert von {field} ist bereits vergeben.",
  "record.restricted": "{model} {id} hat noch Datensätze in {relation}; löschen Sie diese zuerst.",
  "record.restrictedOne": "{model} {id} hat noch einen Datensatz in {relation}; löschen Sie diesen zuerst.",
  "storage.full":
    "Der Server hat keinen Speicherplatz mehr, daher wurde dieser Schreibvorgang nicht gespeichert. Wiederholen Sie ihn, sobald wieder Platz frei ist.",
  "request.noRoute": "Keine Route passt zu {method} {path}.",
  "request.methodNotAllowed": "Die Methode {method} ist hier nicht erlaubt; erlaubt: {allow}.",
  "request.bodyTooLarge": "Der Request-Body ist größer als das Limit von {limit} Bytes.",
  "request.bodyUnreadable": "Der Request-Body konnte nicht bis zum Ende gelesen werden.",
  "request.bodyInvalidJson": "Der Request-Body ist kein gültiges JSON.",
  "request.bodyInvalidJsonAt":
    "Der Request-Body ist kein gültiges JSON: unerwartetes {found} in Zeile {line}, Spalte {column}.",
  "request.bodyJsonCutShort":
    "Der Request-Body ist kein gültiges JSON: Er endet in Zeile {line}, Spalte {column}, bevor der JSON-Wert vollständig ist.",
  "request.bodyNotObject": "Der Request-Body muss ein JSON-Objekt sein.",
  "request.unsupportedMediaType": "Der Request-Body muss als application/json gesendet werden.",
  "request.unsupportedEncoding":
    'Der Request-Body ist mit Content-Encoding "{coding}" gesendet, das dieser Server nicht dekodiert; senden Sie ihn ohne (identity).',
  "request.unsupportedCharset":
    'Der Request-Body muss JSON in UTF-8 sein; sein Content-Type nennt charset "{charset}".',
  "request.clientGone": "Der Client hat die Verbindung geschlossen.",
  "auth.required":
    "Für {operation} auf {model} ist eine Anmeldung nötig: senden Sie ein Token (Authorization: Bearer …) oder einen API-Schlüssel.",
  "auth.forbidden": "Ihre Rollen dürfen {operation} auf {model} nicht verwenden.",
  "auth.invalidToken": "Das Bearer-Token ist ungültig: {reason}.",
  "auth.invalidKey": "Der API-Schlüssel ist ungültig (unbekannt oder widerrufen).",
  "auth.checkFailed": "Der Datensatz läge außerhalb dessen, was Ihre Rollen auf {model} schreiben dürfen.",
  "auth.notWritable": "Das Feld {field} darf mit Ihren Rollen nicht geschrieben werden.",
  "request.tooManyRequests":
    "Anfragelimit überschritten. Erlaubt sind höchstens {max} Anfragen in {window} Sekunden; erneut versuchen in {retryAfter} Sekunden.",
  "request.notReady": "Die Datenbank ist nicht erreichbar.",
  "request.targetMalformed": "Das Anfrageziel oder der Host-Header ist fehlerhaft.",
  "request.malformed": "Die Anfrage ist kein gültiges HTTP/1.1: {reason}.",
  "request.headersTooLarge": "Die Header der Anfrage sind größer als das Limit von {limit} Bytes.",
  "request.chunkExtensionsTooLarge": "Die Chunk-Erweiterungen des Request-Bodys sind größer, als der Server erlaubt.",
  "request.timedOut": "Die Anfrage ist nicht rechtzeitig eingegangen: Der Server erlaubt {allowed}.",
  "timeout.headers": "{ms} ms für ihre Header",
  "timeout.request": "{ms} ms für die ganze Anfrage",
  "timeout.both": "{headers} ms für ihre Header und {request} ms für die ganze Anfrage",
  "server.shuttingDown": "Der Server wird heruntergefahren; bitte die Anfrage in Kürze wiederholen.",
  "param.repeated": "Der Parameter {name} darf nur einmal angegeben werden.",
  "param.boolean": 'Der Parameter {name} muss true oder false sein; erhalten: "{value}".',
  "param.integerRange": 'Der Parameter {name} muss eine ganze Zahl von {min} bis {max} sein; erhalten: "{value}".',
  "param.fields": 'Der Parameter fields muss Spaltennamen durch Kommas getrennt aufzählen; erhalten: "{value}".',
  "cursor.malformed":
    "Der Cursor ist fehlerhaft oder abgeschnitten; senden Sie pagination.next oder pagination.prev genau so, wie Sie ihn erhalten haben.",
  "cursor.forged":
    "Der Cursor wurde verändert oder von einem anderen Server ausgestellt (seine Signatur passt nicht); senden Sie pagination.next oder pagination.prev genau so, wie Sie ihn erhalten haben.",
  "cursor.withPage":
    "Der Parameter page kann nicht mit cursor kombiniert werden: Der Cursor legt die Seite bereits fest.",
  "cursor.otherList":
    "Der Cursor wurde von einer anderen Liste ausgestellt, nicht von {list}; ein Cursor gilt nur für die Liste, die ihn ausgestellt hat.",
  "cursor.otherPrincipal":
    "Der Cursor wurde einem anderen Client ausgestellt; ein Cursor gilt nur für den, dem er ausgestellt wurde.",
  "cursor.differs":
    "Der Parameter {name} weicht vom Wert ab, für den dieser Cursor erstellt wurde; senden Sie den Cursor ohne {name} oder mit demselben Wert.",
  "param.count": 'Der Parameter count muss einer dieser Werte sein: {allowed}; erhalten: "{value}".',
  "param.unknown": 'Unbekannter Parameter "{name}"; diese Route nimmt {known}.',
  "param.none": 'Unbekannter Parameter "{name}"; diese Route nimmt keine Query-Parameter.',
  "query.tooManyRelated":
    "Die Antwort würde über with mehr als {max} verbundene Datensätze enthalten; fragen Sie weniger an: ein kleineres per_page, weniger oder flachere Relationen in with.",
  "query.responseTooLarge":
    "Die Antwort wäre größer als das Limit von {max} Bytes; fragen Sie weniger an: ein kleineres per_page, weniger Felder (fields=, oder in den Klammern von with) oder weniger Relationen in with.",
  "query.timeLimit":
    "Die Abfrage hat länger gedauert, als die Datenbank einem Befehl erlaubt; grenzen Sie sie ein (weniger oder genauere Bedingungen in q, eine kleinere Seite, count=none, eine Sortierung nach einem indizierten Feld) oder versuchen Sie es später erneut.",
  "query.sortNotAllowed": "Sortieren nach {fields} ist bei {model} nicht erlaubt; sortierbare Felder: {allowed}",
  "query.sortTooLarge":
    "Diese Sortierung ist zu groß, um sie im Speicher der Datenbank zu halten: Sortieren Sie nach einem indizierten Feld, filtern Sie mit q oder blättern Sie per Cursor.",
  "query.filterNotAllowed": "Filtern nach {fields} ist bei {model} nicht erlaubt; filterbare Felder: {allowed}",
  "query.withNotAllowed": "Das Laden von {path} mit with ist bei {model} nicht erlaubt; ladbare Relationen: {allowed}",
  "query.relatedTooMany":
    "Die q-Bedingung auf {relation} trifft mehr als {max} Datensätze von {model}; bitte die Bedingung einschränken (eine Bedingung auf eine Relation darf höchstens {max} treffen)",
  "query.undefinedColumns": "Unbekannte Spaltennamen: {names}",
  "query.undefinedRelation": "Unbekannte Relation: {path}",
  "query.relationTwice": 'Die Relation "{name}" kommt in with zweimal vor',
  "query.withMalformed":
    "Fehlerhaftes with an Position {position}: {problem}; schreiben Sie z. B. with=posts{title|comments{content}},user{name}",
  "with.emptyName": "leerer Name",
  "with.unexpected": 'unerwartetes "{found}"',
  "with.unexpectedSeparator": 'unerwartetes "{found}", erwartet: , oder |',
  "with.emptyList": "leere Liste in {name}{}",
  "with.missingBrace": "unausgeglichene Klammern, eine } fehlt",
  "with.extraBrace": "unausgeglichene Klammern, unerwartete }",
  "query.sortEmpty": "Leerer Feldname in sort; schreiben Sie z. B. sort=-created_at,name",
  "query.sortTwice": 'Das Feld "{field}" kommt in sort zweimal vor',
  "query.sortNotScalar":
    "Nach {field} kann nicht sortiert werden: das Feld enthält eine Liste oder ein Objekt, also keinen einzelnen Wert; sortieren Sie nach einem Feld mit einem Wert",
  "query.limitExceeded": "{what} überschreitet das Limit von {max}",
  "limit.queryLength": "Die Länge von q in Bytes",
  "limit.conditions": "Die Anzahl der Bedingungen in q",
  "limit.depth": "Die Verschachtelungstiefe von q",
  "limit.relationDepth": "Die Relationstiefe von with (bei {path})",
  "limit.relations": "Die Anzahl der Relationen in with",
  "limit.relatedConditions": "Die Anzahl der Bedingungen auf verbundene Datensätze in q",
  "query.likeWildcards": "{where} hat {count} Platzhalter; höchstens {max} sind erlaubt",
  "query.likePattern": "Das like-Muster",
  "query.operandKind": 'Ungültiger Wert für "{key}" in q: erwartet {expected}, erhalten {got}',
  "query.operandArity": 'Ungültiger Wert für "{key}" in q: erwartet genau {arity} Werte, erhalten {count}',
  "query.listTooLong": 'Die Liste von "{key}" in q hat {count} Werte, mehr als das Limit von {max}',
  "query.needsOrdered":
    'Der Operator in "{key}" braucht ein geordnetes Feld; boolesche Felder kennen nur =, $not, $in und $notIn',
  "query.likeNeedsString": '"{key}" in q: like-Operatoren brauchen ein Zeichenkettenfeld, nicht {kind}',
  "query.likeNeedsPattern": 'Ungültiger Wert für "{key}" in q: erwartet ein Muster als Zeichenkette',
  "query.nullNotAllowed":
    '"{key}" in q kann nicht null annehmen; verwenden Sie {"field": null} oder {"field.$not": null}',
  "query.unsupportedOperator":
    'Nicht unterstützter Operator "{name}" im q-Schlüssel "{key}"; schreiben Sie einen Feldnamen mit optionalem Suffix ({operators}) und die Präfixe $or./$and.',
  "query.missingField": 'Fehlender Feldname im q-Schlüssel "{key}"',
  "query.unknownOperator": 'Unbekannter Operator "{operator}" im q-Schlüssel "{key}"; erlaubt: {operators}',
  "query.objectOperand": 'Ungültiger Wert für "{key}" in q: Objekte sind als Operanden nicht erlaubt',
  "query.badCondition":
    'Jede Bedingung in q muss ein Objekt wie {"name":"Karl"} oder ein Array davon sein; erhalten: {value}',
  "query.malformedJson":
    'Fehlerhaftes JSON in q; senden Sie URL-kodiertes JSON wie {"name":"Karl"} oder [{"name":"Karl"},{"$or.age.$gt":18}]',
  "kind.string": "eine Zeichenkette",
  "kind.integer": "eine ganze Zahl",
  "kind.number": "eine Zahl",
  "kind.boolean": "true oder false",
  "kind.date": "ein ISO-8601-Datum wie 2024-01-31 oder 2024-01-31T12:00:00Z",
  "kind.other": "eine Zeichenkette, eine Zahl oder einen Wahrheitswert",
  "kind.pair": "ein Array [von, bis]",
  "kind.array": "ein Array",
  "value.null": "null",
  "value.array": "ein Array",
  "value.object": "ein Objekt",
  "value.string": "eine Zeichenkette",
  "value.impossibleDate": '"{value}", einen Tag, den es im Kalender nicht gibt',
  "value.unreadableDate": '"{value}", das nicht in dieser Form ist',

  "value.number": "eine Zahl",
  "value.boolean": "einen Wahrheitswert",
};
