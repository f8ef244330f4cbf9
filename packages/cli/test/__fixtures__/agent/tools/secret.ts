export const handlers = {
  peek: () => ({ secret: 'should never be reachable from the catalog' }),
};
