// Runs in every test worker before its tests: quiet logs and test-only settings. DATABASE_URL and
// REDIS_KEY_PREFIX come from global-setup (inherited through the environment).
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL ??= 'silent';
process.env.JWT_SECRET ??= 'test-jwt-secret-of-at-least-thirty-two-characters';
// Every test app calls from 127.0.0.1 and many log in with wrong passwords on purpose: the login
// limits are set out of reach here; test/auth/login-limits.e2e-spec.ts sets its own low ones.
process.env.AUTH_RATE_LIMIT_PER_ADDRESS ??= '1000000';
process.env.LOGIN_MAX_FAILURES ??= '1000000';
process.env.LOGIN_ACCOUNT_MAX_FAILURES ??= '1000000';

// Every test app and spawned process would otherwise open 9464/9465: test files run in parallel and
// boot several apps each. Tests of the metrics server pass a free port of their own.
process.env.METRICS_PORT ??= '0';
