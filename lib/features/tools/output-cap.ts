/**
 * Caps tool output by bytes: a runaway `cat` or HTTP body must not blow up the transcript, the
 * model's context window or the event store.
 */

export function capOutput(text: string, capBytes: number): string {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= capBytes) return text;
  // Slicing the buffer may split a multi-byte character; toString replaces the stray bytes.
  const head = Buffer.from(text, "utf8").subarray(0, capBytes).toString("utf8");
  return `${head}\n[output truncated: ${bytes} bytes, showing the first ${capBytes}]`;
}

/** Collects streamed chunks up to a byte cap and remembers how much was dropped. */
export class CappedBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  private total = 0;

  constructor(private readonly capBytes: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.capBytes - this.kept;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  get totalBytes(): number {
    return this.total;
  }

  text(): string {
    const body = Buffer.concat(this.chunks).toString("utf8");
    return this.truncated
      ? `${body}\n[output truncated: ${this.total} bytes, showing the first ${this.kept}]`
      : body;
  }
}
