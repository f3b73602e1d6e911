import { defineConfig } from 'vite';

// Relative asset URLs: the built page works under /order-entry/ on the service and under any
// path a host copies it to. No inline script or style is emitted, so the service's
// Content-Security-Policy (script-src 'self') applies unchanged.
export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The SDK's webhook helpers are never called here; what is left is one small module.
    modulePreload: { polyfill: false },
    sourcemap: true,
  },
});
