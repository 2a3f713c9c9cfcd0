/** The one error type the print module lets out: a user-facing message in gdb's words. */
export class PrintError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrintError';
  }
}
