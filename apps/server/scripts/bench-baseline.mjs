// The benchmark's baseline: Express 4 answering a JSON POST with JSON (body parsing included),
// and nothing else. `pnpm bench` runs it on the same Node binary as the service, so every
// route's figure can be read as a share of what the stack itself allows on this machine.
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.post('/hello', express.json(), (req, res) => {
  res.json({ success: true, data: { hello: 'world', echo: req.body } });
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', port: server.address().port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
