// A syntax error on line 3, column 25 (the *).
export const handlers = {
  add: () => ({ sum: 1 +* }),
};
