#!/usr/bin/env node
/** `npx mongorest`: serves ./models and ./hooks of the current folder (see src/cli.ts). */
import { runProject } from "./cli.ts";

await runProject();
