// The framework's layers, enforced by `npx depcruise src` in scripts/test.sh (docs/architecture.md
// explains them). Imports run one way, from the top of this list down, types included:
//
//   entry     src/mod.ts, src/cli.ts, src/bin.ts            the package's entry points
//   adapters  src/adapters/                                  runtime adapters (node:http, Deno.serve)
//   app       src/app.ts, src/app-options.ts, src/config.ts, src/loader.ts, src/openapi/, src/docs-page/, src/service/
//                                                            wiring, dispatch, app-wide services
//   handlers  src/handlers/                                  route table, one handler per verb
//   query     src/query/                                     parse → plan (pure), and compiling plans to reads
//   model     src/model/                                     definitions, validation, serialisation
//   store     src/store/                                     the one door to the database: it runs the reads
//   plan      src/plan/                                      the reads as data: conditions, pages, relations
//   base      src/errors.ts, src/http/, src/i18n/            errors and web primitives, used by all
//
// The embedded engine (src/embedded/) is a subsystem of its own: it imports nothing outside
// itself, and only store/connect.ts starts it (the package exports it as mongorest/embedded).

const ENTRY = "^src/(mod|cli|bin)\\.ts$";
const ADAPTERS = "^src/adapters/";
const APP = "^src/(app\\.ts|app-options\\.ts|config\\.ts|loader\\.ts|openapi/|docs-page/|service/)";
const HANDLERS = "^src/handlers/";
const QUERY = "^src/query/";
const MODEL = "^src/model/";
const STORE = "^src/store/";
const PLAN = "^src/plan/";
const BASE = "^src/(errors\\.ts|http/|i18n/)";

/** A layer may import only the layers listed after it. */
const LAYERS = [
  ["entry", ENTRY],
  ["adapters", ADAPTERS],
  ["app", APP],
  ["handlers", HANDLERS],
  ["query", QUERY],
  ["model", MODEL],
  ["store", STORE],
  ["plan", PLAN],
  ["base", BASE],
];

const upward = LAYERS.slice(1).map(([name, from], index) => ({
  name: `layers-${name}-imports-no-upper-layer`,
  comment: `${name} may import only the layers below it (${
    LAYERS.slice(index + 2).map(([n]) => n).join(", ") || "none"
  }), never ${LAYERS.slice(0, index + 1).map(([n]) => n).join(", ")}; see docs/architecture.md`,
  severity: "error",
  from: { path: from },
  to: { path: LAYERS.slice(0, index + 1).map(([, path]) => `(${path})`).join("|") },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: "only-the-store-imports-the-driver",
      comment:
        "the store is the one door to the database: handlers, query, model and plan code never import the mongodb driver (bson's types are fine); see docs/architecture.md",
      severity: "error",
      from: { path: "^src/(handlers|query|model|plan)/" },
      to: { path: "^node_modules/mongodb/" },
    },
    {
      name: "parsing-never-imports-the-store",
      comment:
        "parse → plan is pure: src/query/ builds plans (src/plan/ types) and never reaches the store, which executes them; see docs/architecture.md",
      severity: "error",
      from: { path: "^src/query/" },
      to: { path: STORE },
    },
    {
      name: "embedded-engine-is-self-contained",
      comment: "src/embedded/ is a subsystem of its own: it imports nothing of the framework",
      severity: "error",
      from: { path: "^src/embedded/" },
      to: { path: "^src/", pathNot: "^src/embedded/" },
    },
    {
      name: "embedded-engine-started-by-store-connect-only",
      comment:
        "only src/store/connect.ts starts the embedded engine, and src/store/engine-early.ts before the app loads (users reach it as mongorest/embedded)",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(embedded/|store/connect\\.ts$|store/engine-early\\.ts$)" },
      to: { path: "^src/embedded/" },
    },
    {
      name: "no-folder-cycles",
      comment: "a cycle between modules: break it by moving the shared piece down a layer",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "src-imports-no-tests-or-example",
      comment: "the framework never imports its tests, scripts or the example app (models/, hooks/, main.ts)",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(tests|scripts|models|hooks)/|^main\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|data)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["es6"],
  },
};
