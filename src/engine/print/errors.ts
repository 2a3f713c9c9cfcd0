import { EngineError } from '../errors.js';

/** The print module's errors: engine errors (code bad-expression) with a message in gdb's words. */
export class PrintError extends EngineError {
  constructor(message: string) {
    super(message, 'bad-expression');
    this.name = 'PrintError';
  }
}
