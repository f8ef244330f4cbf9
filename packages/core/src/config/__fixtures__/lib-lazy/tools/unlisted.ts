// Records that it was imported, so a test can tell when.
const imports = ((globalThis as { __libLazyImports?: number }).__libLazyImports ?? 0) + 1;
(globalThis as { __libLazyImports?: number }).__libLazyImports = imports;

export const handlers = { ping: () => `pong after ${imports} import(s)` };
