// An instructions file that cannot be built as written: always names the file and the line, so
// the user sees where before any step has run.
import { InvalidParameterError } from '../../api/errors';

export class SvcfileError extends InvalidParameterError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${file} parse error line ${line}: ${reason}`);
  }
}
