import { ApiError, setToken } from './api.ts';
import { errorLink, h } from './dom.ts';
import { auditView, conversationView, instancesView, schedulesView, tracesView } from './list-views.ts';
import { traceView, type ViewContext } from './trace-view.ts';

const main = document.getElementById('main')!;
const status = document.getElementById('status')!;
let current: AbortController | null = null;

function say(message: string): void {
  status.replaceChildren(h('p', { class: 'note' }, message));
}

function errorBox(thrown: unknown): HTMLElement {
  if (thrown instanceof ApiError) {
    return h(
      'div',
      { class: 'problem', role: 'alert' },
      h('p', {}, errorLink(thrown.code), ` ${thrown.message}`),
      thrown.suggestion ? h('p', {}, thrown.suggestion) : '',
    );
  }
  return h(
    'div',
    { class: 'problem', role: 'alert' },
    h('p', {}, `Something went wrong: ${(thrown as Error)?.message ?? thrown}`),
  );
}

function fail(thrown: unknown): void {
  if (thrown instanceof ApiError && thrown.status === 401) return askForToken();
  status.replaceChildren(errorBox(thrown));
}

/** This server needs a bearer token: ask for it once; it is kept for this tab only (sessionStorage). */
function askForToken(): void {
  const input = h('input', {
    id: 'token',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  }) as HTMLInputElement;
  main.replaceChildren(
    h('h1', {}, 'Token required'),
    h('p', {}, 'This server was started with a token (GOONDAN_SERVE_TOKEN or --token). Enter it to continue.'),
    h(
      'form',
      {
        onsubmit: (event: Event) => {
          event.preventDefault();
          setToken(input.value.trim());
          void route();
        },
      },
      h('label', { for: 'token' }, 'Bearer token'),
      input,
      h('button', { type: 'submit' }, 'Continue'),
    ),
  );
  input.focus();
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

async function route(): Promise<void> {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  status.replaceChildren();
  const context: ViewContext = { main, signal: controller.signal, say, fail };
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = hash.split('?');
  // An address typed or linked by hand may hold a `%` that is not percent-encoding (#/trace/%ff): kept as typed.
  const parts = path.split('/').map(decodePart);
  for (const link of document.querySelectorAll('nav a')) {
    const here =
      (link as HTMLAnchorElement).hash.slice(2) === (parts[0] === 'trace' ? 'traces' : parts[0] || 'instances');
    if (here) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  try {
    if (parts[0] === 'trace' && parts[1]) await traceView(context, parts[1]);
    else if (parts[0] === 'traces') await tracesView(context, new URLSearchParams(search));
    else if (parts[0] === 'audit') await auditView(context);
    else if (parts[0] === 'schedules') await schedulesView(context, new URLSearchParams(search));
    else if (parts[0] === 'conversation' && parts[1] && parts[2])
      await conversationView(context, parts[1], parts[2], new URLSearchParams(search));
    else await instancesView(context);
  } catch (thrown) {
    if (controller.signal.aborted) return;
    if (thrown instanceof ApiError && thrown.status === 401) return askForToken();
    main.replaceChildren(h('h1', {}, 'Could not load this view'), errorBox(thrown));
  }
}

window.addEventListener('hashchange', () => {
  void route();
  main.focus({ preventScroll: true });
});
void route();
