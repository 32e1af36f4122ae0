import type { Catalog } from "./catalog-en.ts";

/**
 * The French catalog (`fr`). Where Axe API answers the same message in French, these are its
 * words (its validator's catalog, validatorjs' `fr`), with a second sentence where ours says more.
 */
export const fr: Catalog = {
  "validation.required": "Le champ {field} est requis.",
  "validation.readOnly": "Le champ {field} est en lecture seule.",
  "validation.notAllowed": "Le champ {field} n'est pas autorisé.",
  "validation.string": "Le champ {field} doit être une chaîne de caractères.",
  "validation.integer": "Le champ {field} doit être un entier.",
  "validation.number": "Le champ {field} doit être un chiffre.",
  "validation.boolean": "Le champ {field} doit valoir true ou false.",
  "validation.date": "Le champ {field} doit être une date au format ISO 8601, par ex. 2026-01-02T03:04:05.678Z.",
  "validation.array": "Le champ {field} doit être un tableau.",
  "validation.object": "Le champ {field} doit être un objet.",
  "validation.email": "Le champ {field} contient un format invalide.",
  "validation.nonempty": "Le champ {field} ne doit pas être vide.",
  "validation.enum": "Le champ {field} est invalide. Valeurs autorisées : {allowed}.",
  "validation.invalid": "Le champ {field} est invalide : {reason}.",
  "validation.unprintable": "Le champ {field} est invalide.",
  "validation.shape": "Le champ {field} {problem}.",
  "validation.foreignKey": "Le champ {field} doit désigner un enregistrement existant de {model}.",
  "validation.more":
    "D'autres erreurs n'ont pas été listées (au plus {max} le sont) ; corrigez celles-ci et renvoyez le corps.",
  "shape.dollarKey": 'a une clé "{key}" qui commence par "$"',
  "shape.dotKey": 'a une clé "{key}" qui contient "."',
  "shape.nulKey": "a une clé qui contient un caractère NUL",
  "shape.loneSurrogate":
    "contient un texte qui n'est pas de l'Unicode valide : un demi-code UTF-16 (\\ud800 à \\udfff) isolé",
  "shape.infinite": "contient un nombre trop grand",
  "shape.unsafeInteger": "contient un entier au-delà de ±9007199254740991 qui perdrait en précision",
  "shape.tooDeep": "est imbriqué sur plus de {max} niveaux",
  "shape.stringTooLong": "doit contenir au plus {max} caractères",
  "shape.nestedStringTooLong": "contient une chaîne de plus de {max} caractères",
  "record.notFound": "L'élément est introuvable dans {model}.",
  "record.changed": "L'élément a changé : If-Match ne correspond pas à son ETag actuel.",
  "record.unchanged":
    "L'élément est toujours dans la version que nomme If-None-Match (ou If-None-Match vaut *, et il existe) : rien n'a été écrit.",
  "record.duplicate": "La valeur de {field} est déjà prise.",
  "record.restricted": "{model} {id} a encore des éléments dans {relation} ; supprimez-les d'abord.",
  "record.restrictedOne": "{model} {id} a encore un élément dans {relation} ; supprimez-le d'abord.",
  "storage.full":
    "Le serveur n'a plus d'espace de stockage ; cette écriture n'a donc pas été enregistrée. Réessayez dès que de l'espace aura été libéré.",
  "request.noRoute": "Aucune route ne correspond à {method} {path}.",
  "request.methodNotAllowed": "La méthode {method} n'est pas autorisée ici ; autorisées : {allow}.",
  "request.bodyTooLarge": "Le corps de la requête dépasse la limite de {limit} octets.",
  "request.bodyUnreadable": "Le corps de la requête n'a pas pu être lu jusqu'au bout.",
  "request.bodyInvalidJson": "Le corps de la requête n'est pas du JSON valide.",
  "request.bodyInvalidJsonAt":
    "Le corps de la requête n'est pas du JSON valide : {found} inattendu à la ligne {line}, colonne {column}.",
  "request.bodyJsonCutShort":
    "Le corps de la requête n'est pas du JSON valide : il se termine à la ligne {line}, colonne {column}, avant la fin de la valeur JSON.",
  "request.bodyNotObject": "Le corps de la requête doit être un objet JSON.",
  "request.unsupportedMediaType": "Le corps de la requête doit être envoyé en application/json.",
  "request.unsupportedEncoding":
    'Le corps de la requête est envoyé avec le Content-Encoding "{coding}", que ce serveur ne décode pas ; envoyez-le sans (identity).',
  "request.unsupportedCharset":
    'Le corps de la requête doit être du JSON en UTF-8 ; son Content-Type indique le charset "{charset}".',
  "request.clientGone": "Le client a fermé la connexion.",
  "auth.required":
    "Une connexion est requise pour {operation} sur {model} : envoyez un jeton (Authorization: Bearer …) ou une clé d'API.",
  "auth.forbidden": "Vos rôles ne permettent pas {operation} sur {model}.",
  "auth.invalidToken": "Le jeton porteur n'est pas valide : {reason}.",
  "auth.invalidKey": "La clé d'API n'est pas valide (inconnue ou révoquée).",
  "auth.checkFailed": "L'enregistrement sortirait de ce que vos rôles peuvent écrire sur {model}.",
  "auth.notWritable": "Le champ {field} ne peut pas être écrit avec vos rôles.",
  "request.tooManyRequests":
    "Limite de requêtes dépassée. Au plus {max} requêtes en {window} secondes sont autorisées ; réessayez dans {retryAfter} secondes.",
  "request.notReady": "La base de données est injoignable.",
  "request.targetMalformed": "La cible de la requête ou l'en-tête Host est mal formé.",
  "request.malformed": "La requête n'est pas du HTTP/1.1 valide : {reason}.",
  "request.headersTooLarge": "Les en-têtes de la requête dépassent la limite de {limit} octets.",
  "request.chunkExtensionsTooLarge":
    "Les extensions de blocs du corps de la requête dépassent ce que le serveur autorise.",
  "request.timedOut": "La requête n'a pas été reçue à temps : le serveur accorde {allowed}.",
  "timeout.headers": "{ms} ms pour ses en-têtes",
  "timeout.request": "{ms} ms pour la requête entière",
  "timeout.both": "{headers} ms pour ses en-têtes et {request} ms pour la requête entière",
  "server.shuttingDown": "Le serveur est en cours d'arrêt ; réessayez la requête dans un instant.",
  "param.repeated": "Le paramètre {name} ne peut être donné qu'une fois.",
  "param.boolean": 'Le paramètre {name} doit valoir true ou false ; reçu "{value}".',
  "param.integerRange": 'Le paramètre {name} doit être un entier de {min} à {max} ; reçu "{value}".',
  "param.fields": 'Le paramètre fields doit lister des noms de colonnes séparés par des virgules ; reçu "{value}".',
  "cursor.malformed": "Le curseur est mal formé ou tronqué ; renvoyez pagination.next ou pagination.prev tel que reçu.",
  "cursor.forged":
    "Le curseur a été modifié ou émis par un autre serveur (sa signature ne correspond pas) ; renvoyez pagination.next ou pagination.prev tel que reçu.",
  "cursor.withPage": "Le paramètre page ne peut pas être combiné avec cursor : le curseur indique déjà la page à lire.",
  "cursor.otherList":
    "Le curseur a été émis par une autre liste, pas par {list} ; un curseur ne fonctionne que sur la liste qui l'a émis.",
  "cursor.otherPrincipal":
    "Le curseur a été délivré à un autre client ; un curseur ne vaut que pour celui à qui il a été délivré.",
  "cursor.differs":
    "Le paramètre {name} diffère de la valeur pour laquelle ce curseur a été créé ; envoyez le curseur sans {name}, ou avec la même valeur.",
  "param.count": 'Le paramètre count doit valoir l\'une de ces valeurs : {allowed} ; reçu : "{value}".',
  "param.unknown": 'Paramètre inconnu "{name}" ; cette route accepte {known}.',
  "param.none": 'Paramètre inconnu "{name}" ; cette route n\'accepte aucun paramètre de requête.',
  "query.tooManyRelated":
    "La réponse contiendrait plus de {max} enregistrements liés via with ; demandez moins : un per_page plus petit, des relations moins nombreuses ou moins profondes dans with.",
  "query.responseTooLarge":
    "La réponse dépasserait la limite de {max} octets ; demandez moins : un per_page plus petit, moins de champs (fields=, ou entre les accolades de with) ou moins de relations dans with.",
  "query.timeLimit":
    "La requête a pris plus de temps que la base de données n'en accorde à une commande ; restreignez-la (des conditions moins nombreuses ou plus sélectives dans q, une page plus petite, count=none, un tri sur un champ indexé) ou réessayez plus tard.",
  "query.sortNotAllowed": "Le tri sur {fields} n'est pas autorisé pour {model} ; champs triables : {allowed}",
  "query.sortTooLarge":
    "Ce tri est trop volumineux pour la mémoire de la base de données : triez sur un champ indexé, filtrez avec q ou paginez par curseur.",
  "query.filterNotAllowed": "Le filtrage sur {fields} n'est pas autorisé pour {model} ; champs filtrables : {allowed}",
  "query.withNotAllowed":
    "Le chargement de {path} avec with n'est pas autorisé pour {model} ; relations chargeables : {allowed}",
  "query.relatedTooMany":
    "La condition q sur {relation} correspond à plus de {max} enregistrements de {model} ; restreignez la condition (une condition sur une relation peut en viser au plus {max})",
  "query.undefinedColumns": "Noms de colonnes inconnus : {names}",
  "query.undefinedRelation": "Relation inconnue : {path}",
  "query.relationTwice": 'La relation "{name}" apparaît deux fois dans with',
  "query.withMalformed":
    "with mal formé à la position {position} : {problem} ; écrivez par ex. with=posts{title|comments{content}},user{name}",
  "with.emptyName": "nom vide",
  "with.unexpected": '"{found}" inattendu',
  "with.unexpectedSeparator": '"{found}" inattendu, attendu , ou |',
  "with.emptyList": "liste vide dans {name}{}",
  "with.missingBrace": "accolades déséquilibrées, il manque une }",
  "with.extraBrace": "accolades déséquilibrées, } inattendue",
  "query.sortEmpty": "Nom de champ vide dans sort ; écrivez par ex. sort=-created_at,name",
  "query.sortTwice": 'Le champ "{field}" apparaît deux fois dans sort',
  "query.sortNotScalar":
    "Impossible de trier sur {field} : ce champ contient une liste ou un objet, sans valeur unique ; triez sur un champ à valeur unique",
  "query.limitExceeded": "{what} dépasse la limite de {max}",
  "limit.queryLength": "La longueur de q en octets",
  "limit.conditions": "Le nombre de conditions dans q",
  "limit.depth": "La profondeur d'imbrication de q",
  "limit.relationDepth": "La profondeur des relations de with (à {path})",
  "limit.relations": "Le nombre de relations dans with",
  "limit.relatedConditions": "Le nombre de conditions sur des enregistrements liés dans q",
  "query.likeWildcards": "{where} a {count} jokers ; au plus {max} sont autorisés",
  "query.likePattern": "Le motif like",
  "query.operandKind": 'Valeur invalide pour "{key}" dans q : attendu {expected}, reçu {got}',
  "query.operandArity": 'Valeur invalide pour "{key}" dans q : attendu exactement {arity} valeurs, reçu {count}',
  "query.listTooLong": 'La liste de "{key}" dans q a {count} valeurs, plus que la limite de {max}',
  "query.needsOrdered":
    "L'opérateur de \"{key}\" exige un champ ordonné ; les booléens n'acceptent que =, $not, $in et $notIn",
  "query.likeNeedsString": '"{key}" dans q : les opérateurs like exigent un champ texte, pas {kind}',
  "query.likeNeedsPattern": 'Valeur invalide pour "{key}" dans q : attendu un motif texte',
  "query.nullNotAllowed": '"{key}" dans q ne peut pas prendre null ; utilisez {"field": null} ou {"field.$not": null}',
  "query.unsupportedOperator":
    'Opérateur non pris en charge "{name}" dans la clé q "{key}" ; écrivez un nom de champ avec un suffixe facultatif ({operators}) et les préfixes $or./$and.',
  "query.missingField": 'Nom de champ manquant dans la clé q "{key}"',
  "query.unknownOperator": 'Opérateur inconnu "{operator}" dans la clé q "{key}" ; autorisés : {operators}',
  "query.objectOperand": 'Valeur invalide pour "{key}" dans q : les objets ne sont pas autorisés comme opérandes',
  "query.badCondition":
    'Chaque condition de q doit être un objet comme {"name":"Karl"} ou un tableau de tels objets ; reçu {value}',
  "query.malformedJson":
    'JSON mal formé dans q ; envoyez du JSON encodé pour URL comme {"name":"Karl"} ou [{"name":"Karl"},{"$or.age.$gt":18}]',
  "kind.string": "une chaîne",
  "kind.integer": "un entier",
  "kind.number": "un nombre",
  "kind.boolean": "true ou false",
  "kind.date": "une date ISO 8601 comme 2024-01-31 ou 2024-01-31T12:00:00Z",
  "kind.other": "une chaîne, un nombre ou un booléen",
  "kind.pair": "un tableau [min, max]",
  "kind.array": "un tableau",
  "value.null": "null",
  "value.array": "un tableau",
  "value.object": "un objet",
  "value.string": "une chaîne",
  "value.impossibleDate": '"{value}", un jour qui n\'existe pas au calendrier',
  "value.unreadableDate": '"{value}", qui n\'est pas sous cette forme',
  "value.number": "un nombre",
  "value.boolean": "un booléen",
};
