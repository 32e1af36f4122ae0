import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { App } from "../../src/mod.ts";
import { defaultErrorHandler } from "../../src/mod.ts";
import { call, exampleApp, jsonOf } from "../helpers/app.ts";
import { ResponseChecker } from "../openapi/checker.ts";
import { mountTinyDisk, type TinyDisk, tinyDiskUnavailable } from "../fixtures/tiny-disk.ts";

/**
 * The example app with its data on a real full disk (a 1 MiB tmpfs): a write that finds no
 * room answers 507 {error}, reads go on, writes succeed again once space is freed, and a
 * restart holds exactly the records whose creation was answered 201.
 */

const OUT_OF_SPACE =
  "The server is out of storage space, so this write was not saved. Retry it once space has been freed.";

function user(n: number) {
  return { email: `u${n}@example.com`, name: `Name${n}`, surname: "S".repeat(200), password: "secret" };
}

async function storedEmails(app: App): Promise<string[]> {
  const { status, body } = await jsonOf(await call(app, "GET", "/api/v1/users?per_page=100&fields=email"));
  assert.equal(status, 200);
  assert.ok(body.pagination.total <= 100, "all users fit one page");
  return body.data.map((u: { email: string }) => u.email).sort();
}

describe("the app on a full disk", { skip: tinyDiskUnavailable }, () => {
  let disk: TinyDisk;
  let app: App | undefined;
  before(async () => (disk = await mountTinyDisk("1m")));
  after(async () => {
    await app?.close();
    await disk.remove();
  });

  async function open(dataDir: string): Promise<App> {
    app = await exampleApp({ uri: undefined, dataDir });
    return app.onError(defaultErrorHandler);
  }

  test("answers 507 while full, recovers without a restart, and keeps exactly the 201s", async () => {
    const dataDir = join(disk.dir, "data");
    let current = await open(dataDir);
    const checker = new ResponseChecker(await (await call(current, "GET", "/api/v1/openapi.json")).json());
    const created: string[] = [];
    let next = 1;
    const post = async () => {
      const body = user(next++);
      return { email: body.email, response: await call(current, "POST", "/api/v1/users", body) };
    };
    created.push((await post()).email);

    await disk.fill();
    let refused = 0;
    for (let round = 0; refused === 0 || round < 3; round++) {
      assert.ok(round < 50, "the disk never filled up");
      for (const { email, response } of await Promise.all(Array.from({ length: 10 }, post))) {
        if (response.status === 201) {
          created.push(email);
          continue;
        }
        assert.equal(response.status, 507, await response.clone().text());
        assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
        const text = await response.text();
        assert.deepEqual(JSON.parse(text), { error: OUT_OF_SPACE });
        assert.deepEqual(
          checker.check("POST", "/api/v1/users", 507, response.headers.get("content-type"), text),
          [],
          "the OpenAPI document describes the 507",
        );
        refused++;
      }
    }
    assert.deepEqual(await storedEmails(current), [...created].sort(), "reads go on and show no refused write");

    await disk.free();
    const { email, response } = await post();
    assert.equal(response.status, 201, "writes resume once space is freed, without a restart");
    created.push(email);

    await current.close();
    current = await open(dataDir);
    assert.deepEqual(
      await storedEmails(current),
      [...created].sort(),
      "a restart holds exactly the records answered 201",
    );
  });
});
