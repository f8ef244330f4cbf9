import { paint, printable } from '../terminal.ts';
import { MarkdownStream, renderMarkdown } from './markdown-stream.ts';

/**
 * Prints an agent's reply as it streams, after an `agent> ` label. On a terminal the reply is rendered as Markdown
 * block by block; into a pipe it is written as the model wrote it. Either way no control character of the model's
 * (an escape sequence, a lone carriage return) is written, only its newlines and tabs: a pipe or a file often ends
 * on a terminal too (`| tee`, `less -R`, `cat` of a log).
 */
export function replyPrinter(options: {
  label: () => string;
  color: boolean;
  markdown: boolean;
  write: (text: string) => void;
  /** The width to wrap at, read at each block rendered (a terminal may be resized); undefined: the renderer's. */
  columns?: () => number | undefined;
}) {
  const { color, write } = options;
  let started = false;
  const start = () => {
    if (!started) write(paint(`${options.label()}> `, 'cyan', color));
    started = true;
  };
  const markdown = options.markdown
    ? new MarkdownStream({
        write: (text) => {
          start();
          write(text);
        },
        render: (text) => {
          const columns = options.columns?.();
          return renderMarkdown(text, { color, ...(columns ? { columns } : {}) });
        },
      })
    : null;
  return {
    /** True while a reply is open (something was written and not ended). */
    get open(): boolean {
      return started || (markdown !== null && !markdown.empty);
    },
    push(text: string): void {
      if (markdown) return markdown.push(printable(text));
      start();
      write(printable(text));
    },
    /** Ends the reply: the rest is rendered, and the next text gets a label again. */
    end(): void {
      if (markdown) markdown.flush();
      else if (started) write('\n');
      started = false;
    },
    /** A reply that did not stream (a model that sent it whole): printed the same way. */
    whole(text: string): void {
      this.push(text);
      this.end();
    },
  };
}
