/**
 * The English catalog: every message the framework sends, keyed. These are the default texts
 * and, where the spec fixes one, exactly the spec's. `{name}` is a placeholder; a placeholder
 * may itself be filled by another message of the same catalog (a fragment such as `kind.integer`).
 */
export const en = {
  // validation (400 {errors})
  "validation.required": "The {field} field is required.",
  "validation.readOnly": "The {field} field is read-only.",
  "validation.notAllowed": "The {field} field is not allowed.",
  "validation.string": "The {field} field must be a string.",
  "validation.integer": "The {field} field must be an integer.",
  "validation.number": "The {field} field must be a number.",
  "validation.boolean": "The {field} field must be true or false.",
  "validation.date": "The {field} field must be a date in ISO 8601 form, e.g. 2026-01-02T03:04:05.678Z.",
  "validation.array": "The {field} field must be an array.",
  "validation.object": "The {field} field must be an object.",
  "validation.email": "The {field} field must be a valid email address.",
  "validation.nonempty": "The {field} field must not be empty.",
  "validation.enum": "The {field} field must be one of: {allowed}.",
  "validation.invalid": "The {field} field is invalid: {reason}.",
  "validation.unprintable": "The {field} field is invalid.",
  "validation.shape": "The {field} field {problem}.",
  "validation.foreignKey": "The {field} field must refer to an existing {model}.",
  "validation.more": "Further problems were not listed (at most {max} are); fix these and send the body again.",
  "shape.dollarKey": 'has a key "{key}" that starts with "$"',
  "shape.dotKey": 'has a key "{key}" that contains "."',
  "shape.nulKey": "has a key that contains a NUL character",
  "shape.loneSurrogate":
    "holds text that is not valid Unicode: a lone UTF-16 surrogate (\\ud800 to \\udfff) without its pair",
  "shape.infinite": "holds a number that is too large",
  "shape.unsafeInteger": "holds an integer beyond ±9007199254740991 that would lose precision",
  "shape.tooDeep": "is nested more than {max} levels deep",
  "shape.stringTooLong": "must be at most {max} characters long",
  "shape.nestedStringTooLong": "holds a string longer than {max} characters",
  // records
  "record.notFound": "The item is not found on {model}.",
  "record.changed": "The item has changed: If-Match does not match its current ETag.",
  "record.unchanged":
    "The item is still in the version If-None-Match names (or If-None-Match is *, and it exists): nothing was written.",
  "record.duplicate": "The {field} has already been taken.",
  // a DELETE while a relation with onDelete "restrict" has live children (409)
  "record.restricted": "{model} {id} still has {relation}; delete them first.",
  "record.restrictedOne": "{model} {id} still has its {relation}; delete it first.",
  "storage.full":
    "The server is out of storage space, so this write was not saved. Retry it once space has been freed.",
  // requests
  "request.noRoute": "No route matches {method} {path}.",
  "request.methodNotAllowed": "The {method} method is not allowed here; allowed: {allow}.",
  "request.bodyTooLarge": "The request body is larger than the limit of {limit} bytes.",
  "request.bodyUnreadable": "The request body could not be read to the end.",
  "request.bodyInvalidJson": "The request body is not valid JSON.",
  "request.bodyInvalidJsonAt":
    "The request body is not valid JSON: unexpected {found} at line {line}, column {column}.",
  "request.bodyJsonCutShort":
    "The request body is not valid JSON: it ends at line {line}, column {column}, before the JSON value is complete.",
  "request.bodyNotObject": "The request body must be a JSON object.",
  "request.unsupportedMediaType": "The request body must be sent as application/json.",
  "request.unsupportedEncoding":
    'The request body is sent with Content-Encoding "{coding}", which this server does not decode; send it without one (identity).',
  "request.unsupportedCharset": 'The request body must be JSON in UTF-8; its Content-Type names charset "{charset}".',
  "request.clientGone": "The client closed the connection.",
  "auth.required":
    "Sign-in is required for {operation} on {model}: send a token (Authorization: Bearer …) or an API key.",
  "auth.forbidden": "Your roles may not use {operation} on {model}.",
  "auth.invalidToken": "The bearer token is not valid: {reason}.",
  "auth.invalidKey": "The API key is not valid (unknown or revoked).",
  "auth.checkFailed": "The record would be outside what your roles may write on {model}.",
  "auth.notWritable": "The {field} field cannot be written with your roles.",
  // Axe API's text first ("Rate limit exceeded."), then what the client needs to know.
  "request.tooManyRequests":
    "Rate limit exceeded. At most {max} requests in {window} seconds are allowed; retry in {retryAfter} seconds.",
  "request.notReady": "The database cannot be reached.",
  "request.targetMalformed": "The request target or Host header is malformed.",
  "request.malformed": "The request is not valid HTTP/1.1: {reason}.",
  "request.headersTooLarge": "The request's header section is larger than the limit of {limit} bytes.",
  "request.chunkExtensionsTooLarge": "The request body's chunk extensions are larger than the server allows.",
  "request.timedOut": "The request was not received in time: the server allows {allowed}.",
  "timeout.headers": "{ms} ms for its headers",
  "timeout.request": "{ms} ms for the whole request",
  "timeout.both": "{headers} ms for its headers and {request} ms for the whole request",
  "server.shuttingDown": "The server is shutting down; retry the request shortly.",
  // query parameters
  "param.repeated": "The {name} parameter may be given only once.",
  "param.boolean": 'The {name} parameter must be true or false; received "{value}".',
  "param.integerRange": 'The {name} parameter must be an integer from {min} to {max}; received "{value}".',
  "param.fields": 'The fields parameter must list column names separated by commas; received "{value}".',
  "cursor.malformed":
    "The cursor is malformed or cut short; send pagination.next or pagination.prev exactly as received.",
  "cursor.forged":
    "The cursor has been altered or was issued by another server (its signature does not match); send pagination.next or pagination.prev exactly as received.",
  "cursor.withPage": "The page parameter cannot be combined with cursor: the cursor already says which page to read.",
  "cursor.otherList":
    "The cursor was issued by another list, not {list}; a cursor works only on the list that issued it.",
  "cursor.otherPrincipal": "The cursor was issued to another client; a cursor works only for the one it was issued to.",
  "cursor.differs":
    "The {name} parameter differs from the value this cursor was made for; send the cursor without {name}, or with the same value.",
  "param.count": 'The count parameter must be one of {allowed}; received "{value}".',
  "param.unknown": 'Unknown parameter "{name}"; this route takes {known}.',
  "param.none": 'Unknown parameter "{name}"; this route takes no query parameters.',
  "query.tooManyRelated":
    "The response would carry more than {max} related records through with; ask for less: a smaller per_page, fewer or shallower relations in with.",
  "query.responseTooLarge":
    "The response would be larger than the limit of {max} bytes; ask for less: a smaller per_page, fewer fields (fields=, or inside the braces of with), or fewer relations in with.",
  "query.timeLimit":
    "The query took longer than the database allows one command; narrow it (fewer or more selective conditions in q, a smaller page, count=none, a sort on an indexed field) or try again later.",
  "query.sortNotAllowed": "Sorting on {fields} is not allowed on {model}; sortable fields: {allowed}",
  "query.sortTooLarge":
    "This sort is too large for the database to hold in memory: sort on an indexed field, filter with q, or page by cursor.",
  "query.filterNotAllowed": "Filtering on {fields} is not allowed on {model}; filterable fields: {allowed}",
  "query.withNotAllowed": "Loading {path} with with is not allowed on {model}; loadable relations: {allowed}",
  "query.relatedTooMany":
    "The q condition on {relation} matches more than {max} {model} records; narrow the condition (a related condition may match at most {max})",
  "query.undefinedColumns": "Undefined column names: {names}",
  "query.undefinedRelation": "Undefined relation: {path}",
  "query.relationTwice": 'Relation "{name}" appears twice in with',
  "query.withMalformed":
    "Malformed with at position {position}: {problem}; write e.g. with=posts{title|comments{content}},user{name}",
  "with.emptyName": "empty name",
  "with.unexpected": 'unexpected "{found}"',
  "with.unexpectedSeparator": 'unexpected "{found}", expected , or |',
  "with.emptyList": "empty list in {name}{}",
  "with.missingBrace": "unbalanced braces, a } is missing",
  "with.extraBrace": "unbalanced braces, unexpected }",
  "query.sortEmpty": "Empty field name in sort; write e.g. sort=-created_at,name",
  "query.sortTwice": 'Field "{field}" appears twice in sort',
  "query.sortNotScalar":
    "Sorting on {field} is not allowed: it holds a list or an object, which has no single value to order by; sort on a field with one value",
  "query.limitExceeded": "{what} exceeds the limit of {max}",
  "limit.queryLength": "The length of q in bytes",
  "limit.conditions": "The number of conditions in q",
  "limit.depth": "The nesting depth of q",
  "limit.relationDepth": "The relation depth of with (at {path})",
  "limit.relations": "The number of relations in with",
  "limit.relatedConditions": "The number of conditions on related records in q",
  "query.likeWildcards": "{where} has {count} wildcards; at most {max} are allowed",
  "query.likePattern": "like pattern",
  "query.operandKind": 'Invalid value for "{key}" in q: expected {expected}, got {got}',
  "query.operandArity": 'Invalid value for "{key}" in q: expected exactly {arity} values, got {count}',
  "query.listTooLong": 'The list of "{key}" in q has {count} values, more than the limit of {max}',
  "query.needsOrdered": 'Operator in "{key}" needs an ordered field; booleans only support =, $not, $in and $notIn',
  "query.likeNeedsString": '"{key}" in q: like-operators need a string field, not {kind}',
  "query.likeNeedsPattern": 'Invalid value for "{key}" in q: expected a string pattern',
  "query.nullNotAllowed": '"{key}" in q cannot take null; use {"field": null} or {"field.$not": null}',
  "query.unsupportedOperator":
    'Unsupported operator "{name}" in q key "{key}"; write a field name with an optional suffix ({operators}), and $or./$and. prefixes',
  "query.missingField": 'Missing field name in q key "{key}"',
  "query.unknownOperator": 'Unknown operator "{operator}" in q key "{key}"; allowed: {operators}',
  "query.objectOperand": 'Invalid value for "{key}" in q: objects are not allowed as operands',
  "query.badCondition": 'Every condition in q must be an object like {"name":"Karl"} or an array of them; got {value}',
  "query.malformedJson":
    'Malformed JSON in q; send URL-encoded JSON such as {"name":"Karl"} or [{"name":"Karl"},{"$or.age.$gt":18}]',
  "kind.string": "a string",
  "kind.integer": "an integer",
  "kind.number": "a number",
  "kind.boolean": "true or false",
  "kind.date": "an ISO 8601 date string such as 2024-01-31 or 2024-01-31T12:00:00Z",
  "kind.other": "a string, number or boolean",
  "kind.pair": "a [low, high] array",
  "kind.array": "an array",
  "value.null": "null",
  "value.array": "an array",
  "value.object": "an object",
  "value.string": "a string",
  "value.impossibleDate": '"{value}", which is not a day of the calendar',
  "value.unreadableDate": '"{value}", which is not in that form',
  "value.number": "a number",
  "value.boolean": "a boolean",
} as const;

/** The key of a framework message. */
export type MessageKey = keyof typeof en;

/** A complete catalog: a text for every key. */
export type Catalog = Readonly<Record<MessageKey, string>>;
