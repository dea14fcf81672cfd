package ferrobase.javaclient;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * A socket factory whose sockets hand every byte they send and receive to {@link RpcTap}, which
 * decodes HBase's RPC framing. Used with {@code --trace FILE}: the client then runs HBase's
 * {@code BlockingRpcClient} (which makes its sockets through
 * {@code hadoop.rpc.socket.factory.class.default}) instead of the Netty client; both write the
 * same bytes (RpcConnection builds the preamble and the headers for both).
 *
 * <p>The sockets have no channel, so Hadoop's {@code NetUtils} uses their plain streams.
 */
public final class TapSocketFactory extends SocketFactory {
  public TapSocketFactory() {}

  @Override
  public Socket createSocket() {
    return new TapSocket();
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    Socket s = new TapSocket();
    s.connect(new InetSocketAddress(host, port));
    return s;
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    Socket s = new TapSocket();
    s.bind(new InetSocketAddress(localHost, localPort));
    s.connect(new InetSocketAddress(host, port));
    return s;
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    Socket s = new TapSocket();
    s.connect(new InetSocketAddress(host, port));
    return s;
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress,
      int localPort) throws IOException {
    Socket s = new TapSocket();
    s.bind(new InetSocketAddress(localAddress, localPort));
    s.connect(new InetSocketAddress(address, port));
    return s;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TapSocketFactory;
  }

  @Override
  public int hashCode() {
    return TapSocketFactory.class.hashCode();
  }

  /** A socket whose streams report to one {@link RpcTap.Conn}. */
  static final class TapSocket extends Socket {
    private RpcTap.Conn conn;
    private InputStream in;
    private OutputStream out;

    private synchronized RpcTap.Conn conn() {
      if (conn == null) {
        conn = RpcTap.open(String.valueOf(getRemoteSocketAddress()));
      }
      return conn;
    }

    @Override
    public synchronized InputStream getInputStream() throws IOException {
      if (in == null) {
        RpcTap.Conn c = conn();
        in = new FilterInputStream(super.getInputStream()) {
          @Override
          public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
              c.received(new byte[] { (byte) b }, 0, 1);
            }
            return b;
          }

          @Override
          public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (n > 0) {
              c.received(buf, off, n);
            }
            return n;
          }
        };
      }
      return in;
    }

    @Override
    public synchronized OutputStream getOutputStream() throws IOException {
      if (out == null) {
        RpcTap.Conn c = conn();
        out = new FilterOutputStream(super.getOutputStream()) {
          @Override
          public void write(int b) throws IOException {
            c.sent(new byte[] { (byte) b }, 0, 1);
            super.out.write(b);
          }

          @Override
          public void write(byte[] buf, int off, int len) throws IOException {
            c.sent(buf, off, len);
            super.out.write(buf, off, len);
          }
        };
      }
      return out;
    }

    @Override
    public synchronized void close() throws IOException {
      if (conn != null) {
        conn.closed();
      }
      super.close();
    }
  }
}
