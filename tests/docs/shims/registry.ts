/**
 * What the documentation's code blocks open (apps, servers, engines), closed after each block:
 * a block shows how to start something; the test stops it again, whether or not the block does.
 */
const open: (() => Promise<unknown> | unknown)[] = [];

/** Remembers a resource's close, to run once after the block. */
export function track(close: () => Promise<unknown> | unknown): void {
  let closed = false;
  open.push(async () => {
    if (closed) return;
    closed = true;
    await close();
  });
}

/** Closes everything the block opened, newest first; a resource the block closed itself is skipped quietly. */
export async function closeAll(): Promise<void> {
  while (open.length > 0) {
    try {
      await open.pop()!();
    } catch (error) {
      if (!/closed|not running|already/i.test(String(error))) throw error;
    }
  }
}
