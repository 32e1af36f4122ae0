import type { Document } from "bson";

/**
 * One dataset and the expected answers, shared by the engine-free semantic test (mingo) and
 * the request-level test (app.fetch), so both check the very same meaning of each query.
 */
const day = (iso: string) => new Date(iso);

/** Stored User documents: `_id`, Dates, a hidden password, and null vs missing on purpose. */
export function userDocs(): Document[] {
  const rows: Document[] = [
    { _id: 1, name: "Karl", surname: "Popper", age: 30, score: 1.5, active: true, born: day("1902-07-28"), tags: ["red"], team_id: 1 },
    { _id: 2, name: "Karla", surname: "Marx", age: 17, score: 2.5, active: false, born: null, tags: ["blue"], team_id: 1 },
    { _id: 3, name: "John", surname: "Locke", age: 65, active: true, born: day("1632-08-29"), tags: ["red", "blue"], team_id: 2 },
    { _id: 4, name: "john", surname: null, age: 18, score: 0, tags: [] },
    { _id: 5, name: "a.b*c", surname: "Regex (chars)", age: null, score: -1, active: false, born: day("2000-01-01T12:00:00Z"), team_id: 2 },
    { _id: 6, name: "100% pure", surname: "Under_score", age: 40, score: 3, active: true, born: day("1999-12-31T23:59:59.999Z"), tags: ["green"], team_id: 1 },
    { _id: 7, name: "Line\nbreak", surname: "Karl", age: 30, score: 1.5, active: false },
    { _id: 8, name: "Ünïcode Ölaf", surname: "Élan", age: 99, score: 9.75, active: true },
  ];
  return rows.map((row, i) => ({
    ...row,
    password: `hash-of-secret-${row._id}`,
    created_at: day(`2024-0${i + 1}-01T00:00:00Z`),
    updated_at: day(`2024-0${i + 1}-15T00:00:00Z`),
  }));
}

/** `q` → the ids it must select from {@link userDocs}, in id order. */
export const WHERE_CASES: readonly [string, number[]][] = [
  ['{"name":"Karl"}', [1]],
  ['{"id":3}', [3]],
  ['{"name.$not":"Karl"}', [2, 3, 4, 5, 6, 7, 8]],
  ['{"surname.$not":"Popper"}', [2, 3, 5, 6, 7, 8]],
  ['{"age.$gt":30}', [3, 6, 8]],
  ['{"age.$gte":30}', [1, 3, 6, 7, 8]],
  ['{"age.$lt":18}', [2]],
  ['{"age.$lte":18}', [2, 4]],
  ['{"id.$in":[1,3,99]}', [1, 3]],
  ['{"id.$in":[]}', []],
  ['{"age.$notIn":[30,17]}', [3, 4, 6, 8]],
  ['{"age.$between":[18,40]}', [1, 4, 6, 7]],
  ['{"age.$between":[40,18]}', []],
  ['{"age.$notBetween":[18,40]}', [2, 3, 8]],
  ['{"name.$like":"Karl*"}', [1, 2]],
  ['{"name.$like":"karl*"}', []],
  ['{"name.$like":"Karl"}', [1]],
  ['{"name.$like":"*o*"}', [3, 4, 8]],
  ['{"name.$like":"a.b*"}', [5]],
  ['{"name.$like":"a?b*"}', []],
  ['{"name.$like":"a.b*c"}', [5]],
  ['{"name.$like":"100%"}', [6]],
  ['{"name.$like":"%pure"}', [6]],
  ['{"surname.$like":"*_*"}', [6]],
  ['{"surname.$like":"Regex (*)"}', [5]],
  ['{"name.$like":"Line*"}', [7]],
  ['{"name.$like":"Line"}', []],
  ['{"name.$like":"*"}', [1, 2, 3, 4, 5, 6, 7, 8]],
  ['{"surname.$like":"*"}', [1, 2, 3, 5, 6, 7, 8]],
  ['{"name.$like":"*a*a*"}', [2]],
  ['{"name.$like":"K*r*l*"}', [1, 2]],
  ['{"name.$notLike":"*a*"}', [3, 4, 6]],
  ['{"surname.$notLike":"*a*"}', [1, 3, 6]],
  ['{"surname.$iLike":"*AR*"}', [2, 5, 7]],
  ['{"surname.$notILike":"*L*"}', [1, 2, 5, 6]],
  ['{"name.$iLike":"ünïcode*"}', [8]],
  ['{"surname":null}', [4]],
  ['{"score":null}', [3]],
  ['{"born":null}', [2, 4, 7, 8]],
  ['{"surname.$not":null}', [1, 2, 3, 5, 6, 7, 8]],
  ['{"score.$gte":1.5}', [1, 2, 6, 7, 8]],
  ['{"active":true}', [1, 3, 6, 8]],
  ['{"active.$not":true}', [2, 5, 7]],
  ['{"tags":"red"}', [1, 3]],
  ['{"born.$lt":"1900-01-01"}', [3]],
  ['{"born.$between":["1999-12-31T23:59:59.999Z","2000-01-01T12:00:00Z"]}', [5, 6]],
  ['{"born":"2000-01-01T14:00:00+02:00"}', [5]],
  ['{"created_at.$gte":"2024-06-01"}', [6, 7, 8]],
  ['{"created_at.$lt":"2024-02-01T00:00:00.001Z"}', [1, 2]],
  ['{"updated_at":"2024-03-15"}', [3]],
  ['[{"name":"Karl"},{"$or.surname":"Marx"}]', [1, 2]],
  ['{"name":"Karl","$or.name":"John"}', [1, 3]],
  ['[{"age.$gte":30},{"$or.name":"john"},{"active":true}]', [1, 3, 6, 7, 8]],
  ['[{"name":"john"},{"$or.age.$gt":60},{"active":true}]', [3, 4, 8]],
  ['[{"active":true},[{"age":30},{"$or.age":65}]]', [1, 3]],
  ['[{"active":true},[{"$or.age":17},{"age":17}]]', [1, 2, 3, 6, 8]],
  ['[[{"name":"Karl"}],[{"$or.name":"John"}]]', [1, 3]],
  ['[{"team_id":1},[{"$or.age.$gt":60},[{"active":true},{"$or.score.$lt":0}]]]', [1, 2, 3, 6, 8]],
  ['[[[[[{"id":1}]]]]]', [1]],
  ['[{"surname.$notIn":["Popper"]},{"age.$lt":20}]', [2]],
];

/** `sort` → the full id order it must produce over {@link userDocs}. */
export const SORT_CASES: readonly [string, number[]][] = [
  ["", [1, 2, 3, 4, 5, 6, 7, 8]],
  ["-id", [8, 7, 6, 5, 4, 3, 2, 1]],
  ["-age", [8, 3, 6, 1, 7, 4, 2, 5]],
  ["age", [5, 2, 4, 1, 7, 6, 3, 8]],
  ["-score,name", [8, 6, 2, 1, 7, 4, 5, 3]],
  ["-created_at", [8, 7, 6, 5, 4, 3, 2, 1]],
  ["active,-id", [4, 7, 5, 2, 8, 6, 3, 1]],
];
