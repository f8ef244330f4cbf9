export const handlers = {
  add: () => ({ added: true }),
  remove: () => ({ removed: true }),
};
