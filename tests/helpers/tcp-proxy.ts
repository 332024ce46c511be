/** A loopback TCP proxy that can be taken down and brought back, to simulate a database outage. */
import type { Socket, TCPSocketListener } from "bun";

export class TcpProxy {
  private listener?: TCPSocketListener<{ peer?: Socket<unknown>; pending: Uint8Array[] }>;
  private readonly sockets = new Set<Socket<unknown>>();
  port = 0;

  constructor(private readonly target: { hostname: string; port: number }) {}

  up(): void {
    const sockets = this.sockets;
    const target = this.target;
    this.listener = Bun.listen<{ peer?: Socket<unknown>; pending: Uint8Array[] }>({
      hostname: "127.0.0.1",
      port: this.port,
      socket: {
        open(client) {
          client.data = { pending: [] };
          sockets.add(client);
          void Bun.connect({
            ...target,
            socket: {
              open(server) {
                sockets.add(server);
                client.data.peer = server;
                for (const chunk of client.data.pending) server.write(chunk);
                client.data.pending = [];
              },
              data: (_server, chunk) => void client.write(chunk),
              close: () => void client.end(),
              error: () => void client.end(),
            },
          }).catch(() => client.end());
        },
        data(client, chunk) {
          if (client.data.peer) client.data.peer.write(chunk);
          else client.data.pending.push(new Uint8Array(chunk));
        },
        close(client) {
          client.data.peer?.end();
        },
      },
    });
    this.port = this.listener.port;
  }

  /** Refuses new connections and cuts every open one. */
  down(): void {
    this.listener?.stop(true);
    for (const s of this.sockets) s.end();
    this.sockets.clear();
  }
}
