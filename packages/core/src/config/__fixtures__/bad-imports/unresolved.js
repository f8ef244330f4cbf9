// Imports a module that does not exist.
import { nope } from './missing-module.ts';

export const handlers = { nope };
