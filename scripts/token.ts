/**
 * Signs a token for the example app, with its development secret (or MONGOREST_JWT_SECRET):
 *
 *   npm run token -- --sub 1              # user 1
 *   npm run token -- --sub 1 --role admin # user 1, as an admin
 *   npm run token -- --sub 1 --hours 8    # valid for 8 hours (default 1)
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { SignJWT } from "jose";
import { DEVELOPMENT_SECRET, TOKEN_ISSUER } from "../mongorest.config.ts";

const USAGE = "usage: npm run token -- --sub <user id> [--role <role>]... [--hours <n>]";

function options() {
  try {
    const { values } = parseArgs({
      options: {
        sub: { type: "string" },
        role: { type: "string", multiple: true },
        hours: { type: "string" },
        help: { type: "boolean" },
      },
    });
    return values;
  } catch (error) {
    console.error(`token: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

const values = options();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const hours = Number(values.hours ?? 1);
if (!values.sub || !/^[1-9][0-9]*$/.test(values.sub) || !(hours > 0)) {
  console.error(`token: --sub must be a user id and --hours a positive number\n${USAGE}`);
  process.exit(2);
}
const secret = new TextEncoder().encode(process.env.MONGOREST_JWT_SECRET || DEVELOPMENT_SECRET);
const token = await new SignJWT({ roles: values.role ?? [] })
  .setProtectedHeader({ alg: "HS256" })
  .setSubject(values.sub)
  .setIssuer(TOKEN_ISSUER)
  .setAudience(TOKEN_ISSUER)
  .setIssuedAt()
  .setExpirationTime(`${hours * 3600}s`)
  .sign(secret);
console.log(token);
