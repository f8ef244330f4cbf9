export const handlers = {
  run: () => ({ ran: true }),
};
