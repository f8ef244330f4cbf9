/**
 * Renders a reply that arrives in pieces as Markdown, one finished block at a time: a block ends at a blank line
 * outside a fenced code block, so paragraphs, lists and tables appear as soon as they are complete and a code
 * fence is drawn whole. `flush` renders what is left when the text ends (a tool call starts, the turn ends).
 */
export class MarkdownStream {
  private pending = '';
  private blocks = 0;

  constructor(private readonly options: { write: (text: string) => void; render: (markdown: string) => string }) {}

  /** True when nothing has been written since the last flush. */
  get empty(): boolean {
    return this.blocks === 0 && this.pending.trim() === '';
  }

  push(delta: string): void {
    this.pending += delta;
    let searchFrom = 0;
    for (;;) {
      const boundary = this.pending.indexOf('\n\n', searchFrom);
      if (boundary < 0) return;
      const block = this.pending.slice(0, boundary);
      if (openFence(block)) {
        searchFrom = boundary + 2;
        continue;
      }
      this.pending = this.pending.slice(boundary + 2);
      searchFrom = 0;
      this.emit(block);
    }
  }

  /** Renders the rest; the next text starts a new reply. */
  flush(): void {
    const rest = this.pending;
    this.pending = '';
    this.emit(rest);
    this.blocks = 0;
  }

  private emit(block: string): void {
    if (block.trim() === '') return;
    const rendered = this.options.render(block).replace(/\n+$/, '');
    this.options.write(`${this.blocks > 0 ? '\n' : ''}${rendered}\n`);
    this.blocks += 1;
  }
}

/** True when the text opens a ``` or ~~~ fence it does not close. */
function openFence(text: string): boolean {
  let open: string | null = null;
  for (const line of text.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (!fence) continue;
    if (open === null) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length) open = null;
  }
  return open !== null;
}

/** Markdown as terminal text: Bun's renderer (headings, lists, tables with wide characters, code), coloured or not. */
export function renderMarkdown(markdown: string, options: { color: boolean; columns?: number }): string {
  return Bun.markdown.ansi(markdown, {
    colors: options.color,
    ...(options.columns ? { columns: options.columns } : {}),
  });
}
