// A sink for the cold-start scripts: answers every POST 200 at once. Prints its URL.
import { createServer } from 'node:http'

const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}'))
})
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`))
