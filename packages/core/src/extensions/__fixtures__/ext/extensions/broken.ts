export function register(): void {
  throw new Error('cannot start: no credentials');
}
