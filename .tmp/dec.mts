import { ObjectId, BSON } from "bson";
import { DocTable } from "/work/main/src/embedded/store/doc-table.ts";
const t = new DocTable();
const ns: number[] = [];
for (let i = 0; i < 100000; i++) ns.push(t.add({ _id: new ObjectId(), name: "Name" + (i % 500), surname: "Surname" + (i % 300), email: `user${i}@example.com`, password: "$2b$10$" + "x".repeat(53), created_at: new Date(1700000000000 + i * 1000), role: "user" }));
for (let r = 0; r < 3; r++) {
  let t0 = performance.now();
  for (const n of ns) t.decode(n);
  const dec = performance.now() - t0;
  t0 = performance.now();
  const f = new Set(["_id", "surname"]);
  for (const n of ns) t.fields(n, f);
  const fl = performance.now() - t0;
  t0 = performance.now();
  for (const n of ns) t.id(n);
  const id = performance.now() - t0;
  t0 = performance.now();
  for (const n of ns) BSON.deserialize(t.bytes(n), { promoteLongs: false });
  const bs = performance.now() - t0;
  console.log(`decode ${(dec * 10).toFixed(2)} µs, fields ${(fl * 10).toFixed(2)} µs, id ${(id * 10).toFixed(2)} µs, BSON.deserialize ${(bs * 10).toFixed(2)} µs per doc`);
}
