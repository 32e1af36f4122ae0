/**
 * Users of the example app as the framework stores them (RecordStore.insert): integer `_id`,
 * the model's fields, both dates and `_rev: 1`; for benchmarks that seed through the driver.
 * @example userDocs(1, 2).map((user) => user.email) // ["user1@example.com", "user2@example.com"]
 */
export function userDocs(from: number, to: number): Record<string, unknown>[] {
  const docs = [];
  for (let id = from; id <= to; id++) {
    const at = new Date(Date.UTC(2026, 0, 1) + id * 1000);
    docs.push({
      _id: id,
      email: `user${id}@example.com`,
      name: `Name${id}`,
      surname: `Surname${id}`,
      password: "secret",
      created_at: at,
      updated_at: at,
      _rev: 1,
    });
  }
  return docs;
}
