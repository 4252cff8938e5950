// The client drivers and mock model servers live in bench/clients.ts: the
// benchmark that measures what the model receives drives the same clients.
export * from '../../bench/clients.js';
