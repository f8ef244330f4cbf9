export {};

throw new Error('boom while importing');
