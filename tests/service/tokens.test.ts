import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from "jose";
import { InvalidToken, TokenVerifier } from "../../src/service/tokens.ts";

const NOW = Date.UTC(2026, 0, 1) / 1000;
const clock = () => NOW * 1000;
const SECRET = "a development secret of at least thirty-two characters";

async function hs256(claims: Record<string, unknown>, secret = SECRET): Promise<string> {
  return await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(secret));
}

async function refusal(verifier: TokenVerifier, token: string): Promise<string> {
  try {
    await verifier.verify(token);
  } catch (error) {
    assert.ok(error instanceof InvalidToken, String(error));
    return error.message;
  }
  assert.fail("the token was accepted");
}

describe("bearer tokens with a shared secret", () => {
  const verifier = new TokenVerifier(
    { secret: SECRET, issuer: "https://id.example", audience: "api", roles: "realm_access.roles" },
    clock,
  );
  const good = { sub: "7", iss: "https://id.example", aud: "api", exp: NOW + 60, realm_access: { roles: ["user"] } };

  test("a good token gives its subject, its roles and authenticated", async () => {
    const principal = await verifier.verify(await hs256(good));
    assert.deepEqual([principal.subject, principal.roles, principal.via], ["7", ["user", "authenticated"], "jwt"]);
  });

  test("each way a token can be wrong says why", async () => {
    assert.equal(await refusal(verifier, await hs256({ ...good, exp: NOW - 60 })), "it has expired");
    assert.equal(await refusal(verifier, await hs256({ ...good, nbf: NOW + 60 })), "it is not valid yet");
    assert.equal(
      await refusal(verifier, await hs256({ ...good, iss: "https://evil.example" })),
      "its iss claim is not accepted",
    );
    assert.equal(await refusal(verifier, await hs256({ ...good, aud: "other" })), "its aud claim is not accepted");
    assert.equal(
      await refusal(verifier, await hs256(good, "another secret of at least thirty-two chars")),
      "its signature does not match",
    );
    assert.equal(await refusal(verifier, "not.a.token"), "it is malformed");
    const none = `${btoa(JSON.stringify({ alg: "none" }))}.${btoa(JSON.stringify(good))}.`.replace(/=/g, "");
    assert.equal(await refusal(verifier, none), "its algorithm is not accepted");
  });

  test("clock tolerance is 5 s by default", async () => {
    const principal = await verifier.verify(await hs256({ ...good, exp: NOW - 4 }));
    assert.equal(principal.subject, "7");
  });

  test("a short secret, or no key at all, stops start-up with one line", () => {
    assert.throws(
      () => new TokenVerifier({ secret: "short" }),
      /auth\.jwt\.secret must be a string of at least 32 characters/,
    );
    assert.throws(() => new TokenVerifier({}), /auth\.jwt needs a secret, publicKeys, jwks or jwksUrl/);
    assert.throws(() => new TokenVerifier({ secret: SECRET, algorithms: ["none"] }), /none is not accepted/);
  });
});

describe("bearer tokens with public keys", () => {
  test("a PEM key verifies RS256; an HS256 token signed with that public key as its secret is refused", async () => {
    const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
    const pem = await exportSPKI(publicKey);
    const verifier = new TokenVerifier({ publicKeys: [pem] }, clock);
    const token = await new SignJWT({ sub: "a", exp: NOW + 60 }).setProtectedHeader({ alg: "RS256" }).sign(privateKey);
    assert.equal((await verifier.verify(token)).subject, "a");
    const confused = await hs256({ sub: "a", exp: NOW + 60 }, pem);
    assert.equal(await refusal(verifier, confused), "its algorithm is not accepted");
  });
});

describe("a JWKS URL on loopback: rotation, unknown kids", () => {
  let server: Server;
  let url = "";
  let served: { keys: JWK[] } = { keys: [] };
  let fetches = 0;
  const pairs: { kid: string; privateKey: CryptoKey; jwk: JWK }[] = [];

  before(async () => {
    for (const kid of ["k1", "k2"]) {
      const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
      pairs.push({
        kid,
        privateKey: privateKey as CryptoKey,
        jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256" },
      });
    }
    served = { keys: [pairs[0].jwk] };
    server = createServer((_request, response) => {
      fetches++;
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(served));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const sign = (at: number, sub: string) =>
    new SignJWT({ sub, exp: NOW + 60 }).setProtectedHeader({ alg: "ES256", kid: pairs[at].kid }).sign(
      pairs[at].privateKey,
    );

  test("the set is fetched once, kept, and fetched again for a kid it does not know", async () => {
    const verifier = new TokenVerifier({ jwksUrl: url, jwksCooldownMs: 0 }, clock);
    assert.equal((await verifier.verify(await sign(0, "before"))).subject, "before");
    assert.equal((await verifier.verify(await sign(0, "again"))).subject, "again");
    assert.equal(fetches, 1, "kept");
    served = { keys: [pairs[0].jwk, pairs[1].jwk] }; // the provider rotates in k2
    assert.equal((await verifier.verify(await sign(1, "after"))).subject, "after");
    assert.equal(fetches, 2, "fetched again for k2");
    const forged = await new SignJWT({ sub: "x", exp: NOW + 60 })
      .setProtectedHeader({ alg: "ES256", kid: "k9" })
      .sign(pairs[0].privateKey);
    assert.equal(await refusal(verifier, forged), "no key matches its key id");
  });
});
