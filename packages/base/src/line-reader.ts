/** How much of each end of an over-long line is kept, so the request id can still be read there. */
const EDGE_BYTES = 4096;

/** What is left of a line longer than the limit: its first and last bytes, and its length. */
export interface CutLine {
  head: string;
  tail: string;
  bytes: number;
}

/**
 * Splits a byte stream into lines (`\n`, an optional `\r` before it dropped), holding at most `maxLineBytes` of a
 * line in memory. A longer line is not kept: its bytes are counted up to its end, only its two ends are kept, and
 * it is handed to `onCut` instead of `onLine`; the lines after it are read as usual. (The SDK's ReadBuffer throws
 * at its limit and loses its place in the stream, so its transport closes.)
 */
export class LineReader {
  private parts: Buffer[] = [];
  private bytes = 0;
  private cut: { head: Buffer; tail: Buffer; bytes: number } | null = null;

  constructor(
    private readonly options: {
      maxLineBytes: number;
      onLine: (line: string) => void;
      onCut: (line: CutLine) => void;
    },
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0x0a, start); end !== -1; end = chunk.indexOf(0x0a, start)) {
      this.keep(chunk.subarray(start, end));
      this.endLine();
      start = end + 1;
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  clear(): void {
    this.parts = [];
    this.bytes = 0;
    this.cut = null;
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    if (this.cut) {
      const { cut } = this;
      cut.bytes += part.length;
      if (cut.head.length < EDGE_BYTES) cut.head = Buffer.concat([cut.head, part]).subarray(0, EDGE_BYTES);
      cut.tail = Buffer.concat([cut.tail, part]).subarray(-EDGE_BYTES);
      return;
    }
    if (this.bytes + part.length <= this.options.maxLineBytes) {
      this.parts.push(Buffer.from(part)); // a copy: the stream may reuse the chunk's memory
      this.bytes += part.length;
      return;
    }
    const sofar = Buffer.concat([...this.parts, part]);
    this.cut = {
      head: Buffer.from(sofar.subarray(0, EDGE_BYTES)),
      tail: Buffer.from(sofar.subarray(-EDGE_BYTES)),
      bytes: sofar.length,
    };
    this.parts = [];
    this.bytes = 0;
  }

  private endLine(): void {
    const { cut } = this;
    if (cut) {
      this.clear();
      this.options.onCut({ head: cut.head.toString('utf8'), tail: cut.tail.toString('utf8'), bytes: cut.bytes });
      return;
    }
    const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
    this.clear();
    this.options.onLine(line);
  }
}

const ID = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `"id": X` as the last member of the message (where the SDK puts it)... */
const ID_AT_END = new RegExp(`${ID}\\s*\\}\\s*$`);
/** ...or among the first members, after only short string members (`{"jsonrpc":"2.0","id":X,...`). */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"\w+"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*)*${ID}\s*[,}]`);
/** A `"method"` member among the first ones: the cut message is a request or notification, not an answer. */
const METHOD_AT_START = /^\s*\{\s*(?:"\w+"\s*:\s*(?:"(?:[^"\\]|\\.)*"|-?\d+)\s*,\s*)*"method"\s*:/;

/**
 * The id of a JSON-RPC message cut for its size, read at either end of it, where a member of the top-level object
 * can be told apart from one nested in params or result without parsing the whole: null when neither end shows it.
 */
export function idOfCutMessage(line: CutLine): string | number | null {
  const found = ID_AT_END.exec(line.tail) ?? ID_AT_START.exec(line.head);
  if (!found?.[1]) return null;
  const id = JSON.parse(found[1]) as unknown;
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as string | number) : null;
}

/** Whether a message cut for its size is a request or notification (its `method` is among its first members). */
export function isCutRequest(line: CutLine): boolean {
  return METHOD_AT_START.test(line.head);
}
