/**
 * Entry point of the load generator's process, forked by `startLoadClient()` in ./load.ts:
 * it only waits for orders from its parent.
 */
import { runLoadClient } from "./load.ts";

runLoadClient();
