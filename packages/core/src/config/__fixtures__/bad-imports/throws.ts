export const handlers = {};

throw new Error('top-level boom');
