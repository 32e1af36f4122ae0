#!/usr/bin/env node
/** `npx mongorest`: serves ./models and ./hooks of the current folder (see src/cli.ts). */
import process from "node:process";
import { startEngineEarly } from "./store/engine-early.ts";

// The engine recovers the data folder while the app's modules load (imported only after this).
const earlyEngine = startEngineEarly(process.env);
const { runProject } = await import("./cli.ts");
await runProject({ earlyEngine });
