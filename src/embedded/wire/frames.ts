import { Buffer } from "node:buffer";

/** Size of the standard message header (length, requestID, responseTo, opCode). */
export const HEADER_SIZE = 16;

/** The byte stream of a connection cannot be a valid sequence of messages. */
export class ProtocolError extends Error {}

/**
 * Splits a connection's byte stream into whole messages. The declared length is checked as
 * soon as its 4 bytes arrive, so an oversize or nonsensical frame is rejected before any of
 * its body is buffered. Chunks are only concatenated once a frame is complete.
 */
export class FrameReader {
  #chunks: Buffer[] = [];
  #buffered = 0;
  #expected = -1;

  /** `maxMessageSize`: largest accepted frame, header included. */
  constructor(private readonly maxMessageSize: number) {}

  /** True while part of a message has arrived and the rest has not. */
  get partial(): boolean {
    return this.#buffered > 0;
  }

  /** Adds received bytes; returns the frames completed by them. Throws ProtocolError. */
  push(chunk: Buffer): Buffer[] {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    const frames: Buffer[] = [];
    for (;;) {
      if (this.#expected < 0) {
        if (this.#buffered < 4) break;
        this.#expected = this.#peekLength();
      }
      if (this.#buffered < this.#expected) break;
      frames.push(this.#take(this.#expected));
      this.#expected = -1;
    }
    return frames;
  }

  #peekLength(): number {
    const head = this.#chunks[0].length >= 4 ? this.#chunks[0] : Buffer.concat(this.#chunks);
    const length = head.readInt32LE(0);
    if (length < HEADER_SIZE || length > this.maxMessageSize) {
      throw new ProtocolError(`invalid message length ${length}`);
    }
    return length;
  }

  #take(n: number): Buffer {
    const all = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks);
    const frame = all.subarray(0, n);
    const rest = all.subarray(n);
    this.#chunks = rest.length ? [rest] : [];
    this.#buffered = rest.length;
    return frame;
  }
}
