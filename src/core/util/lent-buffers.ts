/**
 * Buffers lent to a writer, to be used again once it is done with them. Whoever fills one with bytes to send (a
 * snapshot's blob read into a buffer of ReusedBuffers) lends it with how to give it back; the writer that sends it
 * (agent-pipe.ts) says when the bytes have left (its write's callback: the socket no longer holds the buffer). A
 * buffer whose writer never says so is collected like any other: lending never keeps one alive. Each fresh MiB costs
 * its page faults and, across a restore, the garbage collections that 100 MiB of new buffers trigger (≈ 4 full ones,
 * a third of the core's main thread during a fork of 100 MiB).
 */
const lent = new WeakMap<Buffer, () => void>();

/** Lends `buffer` (the very object that will be written): `giveBack` runs once, when its writer is done with it. */
export function lend(buffer: Buffer, giveBack: () => void): Buffer {
  lent.set(buffer, giveBack);
  return buffer;
}

/** The writer is done with `buffer` (its bytes have left): gives it back if it was lent. */
export function doneWith(buffer: Buffer): void {
  const giveBack = lent.get(buffer);
  if (giveBack === undefined) return;
  lent.delete(buffer);
  giveBack();
}
