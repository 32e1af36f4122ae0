import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SharedWriteCounter, WriteCounter } from "../../src/embedded/write-counter.ts";

describe("write counters", () => {
  for (const make of [() => new WriteCounter(), () => new SharedWriteCounter()]) {
    it(`${make().constructor.name}: a collection's count moves with its own writes and unknown ones only`, () => {
      const counter = make();
      const users = () => counter.of("app", "users");
      const posts = () => counter.of("app", "posts");
      const otherUsers = () => counter.of("other", "users");
      const before = [users(), posts(), otherUsers()];
      counter.count("app", "users");
      counter.count("app", "users");
      assert.deepEqual([users(), posts(), otherUsers()], [before[0]! + 2, before[1], before[2]]);
      counter.count("other", "users");
      assert.deepEqual([users(), posts(), otherUsers()], [before[0]! + 2, before[1], before[2]! + 1]);
      counter.count("app", undefined); // a write of unknown scope moves every collection
      assert.deepEqual([users(), posts(), otherUsers()], [before[0]! + 3, before[1]! + 1, before[2]! + 2]);
      assert.equal(counter.total(), 4);
    });
  }

  it("SharedWriteCounter: the other thread's view over the same memory reads the same counts", () => {
    const engine = new SharedWriteCounter();
    const app = new SharedWriteCounter(engine.memory);
    assert.equal(app.of("app", "users"), 0);
    engine.count("app", "users");
    engine.count("app", "posts");
    assert.equal(app.of("app", "users"), 1);
    assert.equal(app.of("app", "posts"), 1);
    assert.equal(app.total(), 2);
  });
});
