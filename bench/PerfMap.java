import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * PerfMap: has running HotSpot JVMs write their JIT symbol map, /tmp/perf-PID.map, for perf.
 *
 * <p>bench/profile.sh runs it as the server's OS user with the workers' PIDs. It sends
 * "Compiler.perfmap" over each JVM's attach socket, /tmp/.java_pidPID, and only if that socket
 * exists. jcmd does the same, but when the socket is missing (the JVM still starting, already gone,
 * or started without attach) it sends the process SIGQUIT to make it open one: in a PostgreSQL
 * worker that runs PostgreSQL's crash-exit handler, the worker exits with code 2 and the postmaster
 * restarts the whole cluster. This program never signals anything; a missing or dead socket only
 * makes it print why that PID has no fresh map.
 */
public final class PerfMap {
  /** HotSpot's attach protocol 1: version, command, then exactly three arguments. */
  private static final byte[] REQUEST =
      "1\0jcmd\0Compiler.perfmap\0\0\0".getBytes(StandardCharsets.US_ASCII);

  public static void main(String[] args) {
    for (String pid : args) {
      Path socket = Path.of("/tmp/.java_pid" + Long.parseLong(pid));
      try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
        channel.write(ByteBuffer.wrap(REQUEST));
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        while (channel.read(buffer) > 0) {
          answer.write(buffer.array(), 0, buffer.position());
          buffer.clear();
        }
        // The first line is the result code, 0 for success.
        System.out.println(pid + ": " + answer.toString(StandardCharsets.US_ASCII).trim());
      } catch (IOException e) {
        System.out.println(pid + ": no map written: " + e.getMessage());
      }
    }
  }
}
