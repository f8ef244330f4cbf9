import { formatDuration, h } from './dom.ts';
import type { Row, TraceLayout } from './waterfall-model.ts';

export const ROW_HEIGHT = 28;
const OVERSCAN = 12;

export interface WaterfallOptions {
  onSelect(row: Row): void;
  onToggle(row: Row): void;
}

/**
 * A waterfall of a trace layout's rows as an ARIA tree with a time bar per row. Only the rows in view (and a few around)
 * are in the DOM, so a trace of 10,000 spans draws as fast as one of 50. Keyboard: ↑ ↓ Home End move, ← → fold,
 * Enter opens the span.
 */
export class Waterfall {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private layout: TraceLayout;
  private active = 0;
  private selectedId: string | null = null;
  private frame = 0;

  constructor(
    layout: TraceLayout,
    private readonly options: WaterfallOptions,
  ) {
    this.layout = layout;
    this.body = h('div', { class: 'wf-body' });
    this.element = h(
      'div',
      {
        class: 'wf',
        role: 'tree',
        'aria-label': 'Trace waterfall: turn, step, model call and tool call spans',
        tabindex: 0,
        onkeydown: (event: Event) => this.onKey(event as KeyboardEvent),
        onscroll: () => this.schedule(),
        onfocus: (event: Event) => {
          if (event.target === this.element) this.focusRow(this.active);
        },
      },
      this.body,
    );
  }

  update(layout: TraceLayout): void {
    this.layout = layout;
    const index = this.selectedId ? layout.position(this.selectedId) : -1;
    this.active = index >= 0 ? index : Math.min(this.active, Math.max(0, layout.count - 1));
    this.render();
  }

  select(id: string): void {
    const index = this.layout.position(id);
    if (index < 0) return;
    this.active = index;
    this.selectedId = id;
    this.scrollTo(index);
    this.render();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  render(): void {
    const { count } = this.layout;
    this.body.style.height = `${count * ROW_HEIGHT}px`;
    const height = this.element.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.element.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(count, Math.ceil((this.element.scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
    const hadFocus = this.element.contains(document.activeElement) && document.activeElement !== this.element;
    const items: HTMLElement[] = [];
    for (let index = first; index < last; index += 1) items.push(this.row(this.layout.row(index), index));
    // The focused row stays in the DOM even when scrolled away, so focus is never lost.
    if ((this.active < first || this.active >= last) && this.active < count) {
      items.push(this.row(this.layout.row(this.active), this.active));
    }
    this.body.replaceChildren(...items);
    if (hadFocus) this.focusRow(this.active, false);
  }

  private row(row: Row, index: number): HTMLElement {
    const { start, end } = this.layout;
    const total = end - start;
    const left = ((row.start - start) / total) * 100;
    const width = Math.max(0.3, ((row.end - row.start) / total) * 100);
    const kind = row.kind === 'waiting' ? 'tool' : row.kind;
    const tokens = row.tokens ? `${row.tokens[0]}→${row.tokens[1]} tok` : '';
    const code = row.errorCode ?? '';
    const expandable = row.childCount > 0;
    const collapsed = row.collapsed;
    const name = h(
      'span',
      { class: 'wf-name' },
      expandable
        ? h(
            'span',
            {
              class: 'wf-fold',
              'aria-hidden': 'true',
              onclick: (event: Event) => {
                event.stopPropagation();
                this.options.onToggle(row);
              },
            },
            collapsed ? '▸' : '▾',
          )
        : h('span', { class: 'wf-fold', 'aria-hidden': 'true' }, ' '),
      row.crossAgent && row.kind !== 'waiting' ? h('span', { class: 'agent-tag' }, row.agent) : null,
      row.label,
      row.parallel > 1 ? h('span', { class: 'tag' }, `${row.parallel} parallel`) : null,
      code ? h('span', { class: 'code error' }, code) : null,
    );
    // Positions go through the CSSOM: the page's CSP allows no inline style attributes.
    name.style.paddingLeft = `${row.depth * 16 + 4}px`;
    const bar = h('span', { class: 'wf-bar' });
    bar.style.left = `${left}%`;
    bar.style.width = `${Math.min(width, 100 - left)}%`;
    const element = h(
      'div',
      {
        class: `wf-row k-${kind} s-${row.status}${this.selectedId === row.id ? ' selected' : ''}`,
        role: 'treeitem',
        id: `row-${row.id.replace(/[^a-zA-Z0-9_-]/g, '_')}`,
        'data-id': row.id,
        'aria-level': row.depth + 1,
        'aria-setsize': this.layout.count,
        'aria-posinset': index + 1,
        'aria-selected': this.selectedId === row.id ? 'true' : 'false',
        'aria-expanded': expandable ? String(!collapsed) : undefined,
        tabindex: index === this.active ? 0 : -1,
        onclick: () => {
          this.active = index;
          this.selectedId = row.id;
          this.options.onSelect(row);
          this.render();
        },
      },
      name,
      h(
        'span',
        { class: 'wf-meta' },
        row.status === 'running' || row.status === 'waiting' ? row.status : formatDuration(row.end - row.start),
        tokens ? ` · ${tokens}` : '',
      ),
      h('span', { class: 'wf-track', 'aria-hidden': 'true' }, bar),
    );
    element.style.top = `${index * ROW_HEIGHT}px`;
    return element;
  }

  private focusRow(index: number, scroll = true): void {
    if (scroll) this.scrollTo(index);
    if (index < 0 || index >= this.layout.count) return;
    const row = this.layout.row(index);
    const element = this.body.querySelector<HTMLElement>(`[data-id="${CSS.escape(row.id)}"]`);
    element?.focus({ preventScroll: true });
  }

  private scrollTo(index: number): void {
    const top = index * ROW_HEIGHT;
    const view = this.element;
    if (top < view.scrollTop) view.scrollTop = top;
    else if (top + ROW_HEIGHT > view.scrollTop + view.clientHeight)
      view.scrollTop = top + ROW_HEIGHT - view.clientHeight;
  }

  private onKey(event: KeyboardEvent): void {
    const count = this.layout.count;
    if (count === 0) return;
    const row = this.layout.row(this.active);
    let next = this.active;
    switch (event.key) {
      case 'ArrowDown':
        next = Math.min(count - 1, this.active + 1);
        break;
      case 'ArrowUp':
        next = Math.max(0, this.active - 1);
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = count - 1;
        break;
      case 'PageDown':
        next = Math.min(count - 1, this.active + Math.floor(this.element.clientHeight / ROW_HEIGHT));
        break;
      case 'PageUp':
        next = Math.max(0, this.active - Math.floor(this.element.clientHeight / ROW_HEIGHT));
        break;
      case 'ArrowRight':
        if (row.collapsed) this.options.onToggle(row);
        else if (row.childCount > 0) next = this.active + 1;
        break;
      case 'ArrowLeft':
        if (row.childCount > 0 && !row.collapsed) this.options.onToggle(row);
        else {
          for (let index = this.active - 1; index >= 0; index -= 1) {
            if (this.layout.row(index).depth < row.depth) {
              next = index;
              break;
            }
          }
        }
        break;
      case 'Enter':
      case ' ':
        this.selectedId = row.id;
        this.options.onSelect(row);
        this.render();
        break;
      default:
        return;
    }
    event.preventDefault();
    if (next !== this.active) {
      this.active = next;
      this.scrollTo(next);
      this.render();
      this.focusRow(next, false);
    }
  }
}
