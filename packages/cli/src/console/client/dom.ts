/** Attributes and properties of an element made by h(): `on*` are listeners, `class` the class name. */
type Props = Record<string, string | number | boolean | null | undefined | EventListener>;
type Child = Node | string | number | null | undefined | false;

/** Makes an element: h('a', { href: '#/x' }, 'text'). Strings become text nodes, never HTML. */
export function h(tag: string, props: Props = {}, ...children: (Child | Child[])[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export function clear(element: Element, ...children: Node[]): void {
  element.replaceChildren(...children);
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * Local time as `2026-05-04 13:02:09`. Not toLocaleString: its first call in a page loads the locale data, about
 * 70 ms on the path to a trace's first rows (bench/console.ts).
 */
export function formatTime(at: number | null | undefined): string {
  if (!at) return '—';
  const d = new Date(at);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** JSON for a person: pretty, and cut when very long. */
export function preview(value: unknown, max = 4000): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  if (text === undefined) return '';
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

/** A value the server may have cut (console-bounds.ts: `{ truncated, preview }`): the start of its JSON text. */
export function shownValue(value: unknown, max: number): string {
  const cut = value as { truncated?: unknown; preview?: unknown } | null;
  if (cut && typeof cut === 'object' && cut.truncated === true && typeof cut.preview === 'string')
    return preview(`${cut.preview}…`, max);
  return preview(value, max);
}

/** A link to the docs page of an error code. */
export function errorLink(code: string): HTMLElement {
  return h('a', { href: `/console/errors/${encodeURIComponent(code)}`, class: 'code error', target: '_blank' }, code);
}

export function statusBadge(status: string): HTMLElement {
  return h('span', { class: `badge s-${status}` }, status);
}
