export const handlers = { say: () => 'LIBRARY SHOUT' };
