// Imported first by main.ts, so it runs before the rest of the CLI is even loaded: a re-exec (see sealEnvironment)
// then costs little, and nothing has read the environment yet.
import { sealEnvironment } from './seal-environment.ts';

sealEnvironment();
