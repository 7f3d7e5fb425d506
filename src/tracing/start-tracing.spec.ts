import { protocolWarning, tracingConfigured } from './start-tracing';

describe('tracingConfigured (the standard variables decide)', () => {
  it('is on with either OTLP endpoint variable, and off without one', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      true,
    );
  });

  it('is off with OTEL_SDK_DISABLED=true (any case), whatever the endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
  });
});

describe('protocolWarning', () => {
  it('names a protocol other than http/json, the one the exporter speaks', () => {
    expect(protocolWarning({})).toBeNull();
    expect(protocolWarning({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBeNull();
    expect(protocolWarning({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatch(/grpc is not supported/);
    expect(protocolWarning({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toMatch(
      /http\/protobuf/,
    );
  });
});
