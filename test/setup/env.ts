// Runs in every test worker before its tests: quiet logs and test-only settings. DATABASE_URL and
// REDIS_KEY_PREFIX come from global-setup (inherited through the environment).
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL ??= 'silent';
process.env.JWT_SECRET ??= 'test-jwt-secret-of-at-least-thirty-two-characters';
