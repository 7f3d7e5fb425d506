import { ConfigModule as NestConfigModule } from '@nestjs/config';
import { ConfigValidationError, loadConfig } from './app-config';

/** Checks the configuration before Nest starts, so a bad value stops the process with a clear list. */
export function exitOnInvalidConfig(): void {
  void NestConfigModule.envVariablesLoaded;
  try {
    loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigValidationError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
