import { test } from "node:test";
import assert from "node:assert/strict";
import { liveGroupMembers, startServer } from "../helpers/process.ts";

// The check the end-to-end tests end with: it sees a group's processes while they run (a
// background child included) and none once the group has closed its output, without polling.
test("liveGroupMembers sees a running group, and nothing once it has closed", async () => {
  const group = await startServer("sh", ["-c", "sleep 600 & echo ready; exec sleep 600"], {}, /ready/);
  const pgid = group.child.pid!;
  try {
    const running = await liveGroupMembers(pgid);
    assert.equal(running.length, 2, `members: ${running.join(", ")}`);
    assert.ok(running.every((member) => member.includes("(sleep)")), running.join(", "));
  } finally {
    group.signal("SIGKILL");
  }
  await group.closed;
  assert.deepEqual(await liveGroupMembers(pgid), []);
});
