import { CommandError } from "../errors.ts";
import { errorCode } from "./files.ts";

/**
 * The disk being full is the one journal failure the engine recovers from by itself: the
 * failed record is cut off the file, and the next append simply tries again. It is reported
 * to the client as MongoDB reports it, OutOfDiskSpace (code 14031), so the framework (or any
 * driver user) can tell it from other failures.
 */

// ENOSPC: the filesystem is full; EDQUOT: the user's quota is.
const SPACE_CODES = new Set(["ENOSPC", "EDQUOT"]);

/** Whether `error` is the filesystem saying there is no room left. */
export function isOutOfSpace(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && SPACE_CODES.has(code);
}

/** The error a write gets when the journal had no room for it. The write is not applied. */
export function outOfSpace(cause: unknown): CommandError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new CommandError(
    "OutOfDiskSpace",
    `Out of disk space: the write was not saved and is not applied (${reason}). ` +
      `Free space in the data directory and retry; the engine resumes writing by itself.`,
  );
}
