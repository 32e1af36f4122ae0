/**
 * The example app's configuration: `npm start` and `npx mongorest` read it from the project
 * folder. Tokens are HS256 JWTs signed with `MONGOREST_JWT_SECRET`; without it (and not in
 * production) the example's development secret below, which `npm run token` signs with too.
 */
import process from "node:process";
import { defineConfig } from "./src/mod.ts";

/** Only for trying the example out: anyone who reads this file can sign tokens with it. */
export const DEVELOPMENT_SECRET = "mongorest example development secret: never in production";

/** Who the example's tokens are from and for. */
export const TOKEN_ISSUER = "mongorest-example";

function jwtSecret(): string {
  const secret = process.env.MONGOREST_JWT_SECRET;
  if (secret) return secret;
  if (process.env.NODE_ENV === "production") {
    throw new TypeError(
      "set MONGOREST_JWT_SECRET (the development secret is refused in production)",
    );
  }
  return DEVELOPMENT_SECRET;
}

export default defineConfig({
  auth: {
    roles: ["admin"],
    jwt: { secret: jwtSecret(), issuer: TOKEN_ISSUER, audience: TOKEN_ISSUER },
  },
});
