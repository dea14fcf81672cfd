package ferrobase.javaclient;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.shaded.protobuf.generated.AdminProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.MasterProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RegistryProtos;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.protobuf.ByteString;
import org.apache.hbase.thirdparty.com.google.protobuf.CodedInputStream;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.Descriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.EnumValueDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.FieldDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.MethodDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.Descriptors.ServiceDescriptor;
import org.apache.hbase.thirdparty.com.google.protobuf.DynamicMessage;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hbase.thirdparty.com.google.protobuf.UnknownFieldSet;

/**
 * Decodes the bytes of HBase RPC connections (see {@link TapSocketFactory}) into a readable trace:
 * one line per preamble, connection header, request and response, with every set protobuf field
 * as {@code name#number=value}, the cell blocks decoded as KeyValues, and the raw bytes (hex) of
 * the first frame of each kind. Step markers from {@link SeedArticles} interleave.
 */
public final class RpcTap {
  private RpcTap() {}

  private static PrintStream out;
  private static int nextConn = 1;
  private static final Set<String> hexShown = new HashSet<>();
  /** Longest line written; a longer one is cut (Multi of a BufferedMutator flush). */
  private static final int MAX_LINE = 6000;

  private static final Map<String, ServiceDescriptor> SERVICES = new HashMap<>();
  /** HBase 2.6's ConnectionRegistryService; looked up by name, so 2.5 and 3.0 clients compile. */
  private static final ServiceDescriptor REGISTRY_SERVICE =
      RegistryProtos.getDescriptor().findServiceByName("ConnectionRegistryService");

  static {
    for (ServiceDescriptor s : List.of(ClientProtos.ClientService.getDescriptor(),
        MasterProtos.MasterService.getDescriptor(), AdminProtos.AdminService.getDescriptor(),
        RegistryProtos.ClientMetaService.getDescriptor())) {
      SERVICES.put(s.getName(), s);
    }
    if (REGISTRY_SERVICE != null) {
      SERVICES.put(REGISTRY_SERVICE.getName(), REGISTRY_SERVICE);
    }
  }

  /** Starts writing the trace to {@code path}. */
  public static synchronized void start(String path) throws IOException {
    out = new PrintStream(new FileOutputStream(path), true, StandardCharsets.UTF_8);
  }

  public static synchronized boolean enabled() {
    return out != null;
  }

  public static synchronized void marker(String text) {
    if (out != null) {
      out.println();
      out.println("=== " + text);
    }
  }

  static synchronized Conn open(String remote) {
    Conn c = new Conn(nextConn++, remote);
    write("conn#" + c.id + " OPEN to " + remote);
    return c;
  }

  private static synchronized void write(String line) {
    if (out == null) {
      return;
    }
    if (line.length() > MAX_LINE) {
      line = line.substring(0, MAX_LINE) + " ...(" + line.length() + " chars)";
    }
    out.println(line);
  }

  private static synchronized void hexOnce(String kind, byte[] b, int off, int len) {
    if (out == null || !hexShown.add(kind)) {
      return;
    }
    int n = Math.min(len, 768);
    StringBuilder sb = new StringBuilder("    hex(" + len + " bytes" + (n < len ? ", first " + n : "")
        + "):");
    for (int i = 0; i < n; i++) {
      if (i % 32 == 0) {
        sb.append("\n      ");
      } else if (i % 4 == 0) {
        sb.append(' ');
      }
      sb.append(String.format("%02x", b[off + i] & 0xff));
    }
    out.println(sb);
  }

  /** One connection: the client's bytes and the server's bytes, each parsed as they arrive. */
  static final class Conn {
    final int id;
    final String remote;
    private final Buf sent = new Buf();
    private final Buf recv = new Buf();
    /** 0 preamble, 1 connection header, 2 requests, 3 nothing more (registry preamble). */
    private int sendState;
    private boolean registry;
    private ServiceDescriptor service;
    private String codec;
    private final Map<Integer, MethodDescriptor> calls = new HashMap<>();

    Conn(int id, String remote) {
      this.id = id;
      this.remote = remote;
    }

    synchronized void sent(byte[] b, int off, int len) {
      sent.append(b, off, len);
      try {
        parseSent();
      } catch (Exception e) {
        write("conn#" + id + " >> UNPARSED " + e);
        sendState = 3;
      }
    }

    synchronized void received(byte[] b, int off, int len) {
      recv.append(b, off, len);
      try {
        parseReceived();
      } catch (Exception e) {
        write("conn#" + id + " << UNPARSED " + e);
      }
    }

    synchronized void closed() {
      write("conn#" + id + " CLOSE" + (sent.size() > 0 ? " (" + sent.size() + " unparsed bytes sent)" : "")
          + (recv.size() > 0 ? " (" + recv.size() + " unparsed bytes received)" : ""));
    }

    private void parseSent() throws IOException {
      while (true) {
        if (sendState == 0) {
          if (sent.size() < 6) {
            return;
          }
          byte[] p = sent.take(6);
          String magic = new String(p, 0, 4, StandardCharsets.ISO_8859_1);
          if (new String(p, StandardCharsets.ISO_8859_1).equals("Regist")) {
            registry = true;
            sendState = 3;
            write("conn#" + id + " >> PREAMBLE \"Regist\" (connection registry preamble; the server"
                + " answers one response frame and closes)");
            hexOnce("registry-preamble", p, 0, 6);
          } else if (magic.equals("HBas")) {
            sendState = 1;
            write("conn#" + id + " >> PREAMBLE \"HBas\" version=" + (p[4] & 0xff) + " auth=" + (p[5] & 0xff));
            hexOnce("preamble", p, 0, 6);
          } else {
            write("conn#" + id + " >> PREAMBLE unknown " + Bytes.toStringBinary(p));
            sendState = 3;
          }
        } else if (sendState == 1) {
          byte[] f = sent.frame();
          if (f == null) {
            return;
          }
          RPCProtos.ConnectionHeader h = RPCProtos.ConnectionHeader.parseFrom(f);
          service = SERVICES.get(h.getServiceName());
          codec = h.hasCellBlockCodecClass() ? h.getCellBlockCodecClass() : null;
          write("conn#" + id + " >> ConnectionHeader (" + f.length + " bytes) " + fields(h));
          hexOnce("connection-header", withLength(f), 0, f.length + 4);
          sendState = 2;
        } else if (sendState == 2) {
          byte[] f = sent.frame();
          if (f == null) {
            return;
          }
          CodedInputStream in = CodedInputStream.newInstance(f);
          int hlen = in.readRawVarint32();
          int hstart = in.getTotalBytesRead();
          RPCProtos.RequestHeader h = RPCProtos.RequestHeader.parseFrom(
              ByteBuffer.wrap(f, hstart, hlen));
          in.skipRawBytes(hlen);
          MethodDescriptor md = service == null ? null : service.findMethodByName(h.getMethodName());
          calls.put(h.getCallId(), md);
          String param = "";
          int plen = 0;
          if (h.getRequestParam()) {
            plen = in.readRawVarint32();
            byte[] pb = in.readRawBytes(plen);
            param = md == null ? "?" + Bytes.toStringBinary(pb)
                : fields(DynamicMessage.parseFrom(md.getInputType(), pb));
          }
          int cbStart = in.getTotalBytesRead();
          String name = (service == null ? "?" : service.getName()) + "." + h.getMethodName();
          StringBuilder sb = new StringBuilder("conn#" + id + " >> call " + h.getCallId() + " "
              + name + " frame=" + f.length + " header=" + fields(h) + " param(" + plen + ")="
              + param);
          if (h.hasCellBlockMeta()) {
            sb.append(" cellblock(" + h.getCellBlockMeta().getLength() + ")=")
                .append(cells(f, cbStart, h.getCellBlockMeta().getLength()));
          }
          write(sb.toString());
          hexOnce("request " + name, withLength(f), 0, f.length + 4);
        } else {
          sent.take(sent.size());
          return;
        }
      }
    }

    private void parseReceived() throws IOException {
      while (true) {
        byte[] f = recv.frame();
        if (f == null) {
          return;
        }
        CodedInputStream in = CodedInputStream.newInstance(f);
        int hlen = in.readRawVarint32();
        int hstart = in.getTotalBytesRead();
        RPCProtos.ResponseHeader h =
            RPCProtos.ResponseHeader.parseFrom(ByteBuffer.wrap(f, hstart, hlen));
        in.skipRawBytes(hlen);
        MethodDescriptor md = registry && REGISTRY_SERVICE != null
            ? REGISTRY_SERVICE.getMethods().get(0)
            : calls.remove(h.getCallId());
        String name = md == null ? "?" : md.getService().getName() + "." + md.getName();
        StringBuilder sb = new StringBuilder("conn#" + id + " << reply " + h.getCallId() + " "
            + name + " frame=" + f.length + " header=" + fields(h));
        if (!h.hasException() && !in.isAtEnd()) {
          int plen = in.readRawVarint32();
          byte[] pb = in.readRawBytes(plen);
          sb.append(" param(" + plen + ")=").append(md == null ? "?" + Bytes.toStringBinary(pb)
              : fields(DynamicMessage.parseFrom(md.getOutputType(), pb)));
        }
        if (h.hasCellBlockMeta()) {
          int cbStart = in.getTotalBytesRead();
          sb.append(" cellblock(" + h.getCellBlockMeta().getLength() + ")=")
              .append(cells(f, cbStart, h.getCellBlockMeta().getLength()));
        }
        write(sb.toString());
        hexOnce((registry ? "registry " : "") + "response " + name
            + (h.hasException() ? " exception" : ""), withLength(f), 0, f.length + 4);
      }
    }

    /** The cells of a KeyValueCodec(WithTags) cell block. */
    private String cells(byte[] f, int off, int len) {
      boolean tags = codec != null && codec.endsWith("WithTags");
      StringBuilder sb = new StringBuilder("[");
      ByteBuffer b = ByteBuffer.wrap(f, off, len);
      int n = 0;
      while (b.remaining() >= 4) {
        int kvLen = b.getInt();
        int start = b.position();
        int keyLen = b.getInt();
        int valLen = b.getInt();
        short rowLen = b.getShort();
        byte[] row = new byte[rowLen];
        b.get(row);
        int famLen = b.get() & 0xff;
        byte[] fam = new byte[famLen];
        b.get(fam);
        int qualLen = keyLen - 2 - rowLen - 1 - famLen - 8 - 1;
        byte[] qual = new byte[qualLen];
        b.get(qual);
        long ts = b.getLong();
        int type = b.get() & 0xff;
        byte[] val = new byte[valLen];
        b.get(val);
        String tagText = "";
        if (tags && b.position() - start < kvLen) {
          int tagsLen = b.getShort() & 0xffff;
          b.position(b.position() + tagsLen);
          tagText = " tags=" + tagsLen;
        }
        if (n++ > 0) {
          sb.append(", ");
        }
        sb.append(Bytes.toStringBinary(row)).append('/').append(Bytes.toStringBinary(fam))
            .append(':').append(Bytes.toStringBinary(qual)).append('/').append(ts).append('/')
            .append(typeName(type)).append('=').append(Bytes.toStringBinary(val)).append(tagText);
        b.position(start + kvLen);
      }
      return sb.append("] (").append(n).append(" cells)").toString();
    }
  }

  private static String typeName(int t) {
    return switch (t) {
      case 4 -> "Put";
      case 8 -> "Delete";
      case 10 -> "DeleteFamilyVersion";
      case 12 -> "DeleteColumn";
      case 14 -> "DeleteFamily";
      default -> "type" + t;
    };
  }

  private static byte[] withLength(byte[] f) {
    return ByteBuffer.allocate(f.length + 4).putInt(f.length).put(f).array();
  }

  /** Every set field of {@code m} as {@code name#number=value}, in field-number order. */
  static String fields(Message m) {
    StringBuilder sb = new StringBuilder("{");
    int n = 0;
    for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
      FieldDescriptor fd = e.getKey();
      if (n++ > 0) {
        sb.append(", ");
      }
      sb.append(fd.getName()).append('#').append(fd.getNumber()).append('=');
      if (fd.isRepeated()) {
        sb.append('[');
        int i = 0;
        for (Object v : (List<?>) e.getValue()) {
          if (i++ > 0) {
            sb.append(", ");
          }
          value(sb, fd, v);
        }
        sb.append(']');
      } else {
        value(sb, fd, e.getValue());
      }
    }
    UnknownFieldSet unknown = m.getUnknownFields();
    if (!unknown.asMap().isEmpty()) {
      sb.append(n > 0 ? ", " : "").append("UNKNOWN=").append(unknown.asMap().keySet());
    }
    return sb.append('}').toString();
  }

  private static void value(StringBuilder sb, FieldDescriptor fd, Object v) {
    switch (fd.getJavaType()) {
      case MESSAGE -> {
        Message msg = (Message) v;
        Descriptor d = msg.getDescriptorForType();
        // A filter or comparator travels as {name, serialized bytes}: decode the bytes too.
        sb.append(fields(msg));
        String decoded = nested(d, msg);
        if (decoded != null) {
          sb.append("~").append(decoded);
        }
      }
      case BYTE_STRING -> sb.append('"').append(Bytes.toStringBinary(((ByteString) v).toByteArray()))
          .append('"');
      case STRING -> sb.append('"').append(v).append('"');
      case ENUM -> sb.append(((EnumValueDescriptor) v).getName());
      default -> sb.append(v);
    }
  }

  /** Decodes Filter{name, serialized_filter} and Comparator{name, serialized_comparator}. */
  private static String nested(Descriptor d, Message msg) {
    String full = d.getFullName();
    if (!full.equals("hbase.pb.Filter") && !full.equals("hbase.pb.Comparator")) {
      return null;
    }
    String cls = null;
    ByteString bytes = null;
    for (Map.Entry<FieldDescriptor, Object> e : msg.getAllFields().entrySet()) {
      if (e.getKey().getName().equals("name")) {
        cls = (String) e.getValue();
      } else if (e.getKey().getName().startsWith("serialized")) {
        bytes = (ByteString) e.getValue();
      }
    }
    if (cls == null || bytes == null) {
      return null;
    }
    String simple = cls.substring(cls.lastIndexOf('.') + 1);
    try {
      Class<?> outer = Class.forName(full.equals("hbase.pb.Filter")
          ? "org.apache.hadoop.hbase.shaded.protobuf.generated.FilterProtos"
          : "org.apache.hadoop.hbase.shaded.protobuf.generated.ComparatorProtos");
      Class<?> inner = Class.forName(outer.getName() + "$" + simple);
      Descriptor pd = (Descriptor) inner.getMethod("getDescriptor").invoke(null);
      return simple + fields(DynamicMessage.parseFrom(pd, bytes));
    } catch (Exception e) {
      return simple + "?" + Bytes.toStringBinary(bytes.toByteArray());
    }
  }

  /** A growable byte buffer that yields length-prefixed frames. */
  static final class Buf {
    private byte[] pending = new byte[0];

    void append(byte[] b, int off, int len) {
      byte[] next = new byte[pending.length + len];
      System.arraycopy(pending, 0, next, 0, pending.length);
      System.arraycopy(b, off, next, pending.length, len);
      pending = next;
    }

    int size() {
      return pending.length;
    }

    byte[] take(int n) {
      byte[] r = new byte[n];
      System.arraycopy(pending, 0, r, 0, n);
      byte[] rest = new byte[pending.length - n];
      System.arraycopy(pending, n, rest, 0, rest.length);
      pending = rest;
      return r;
    }

    /** The next frame's body (after its 4-byte big-endian length), or null if incomplete. */
    byte[] frame() {
      if (pending.length < 4) {
        return null;
      }
      int len = ByteBuffer.wrap(pending, 0, 4).getInt();
      if (pending.length < 4 + len) {
        return null;
      }
      take(4);
      return take(len);
    }
  }
}
