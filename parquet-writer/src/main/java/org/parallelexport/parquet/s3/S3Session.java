package org.parallelexport.parquet.s3;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.ProxyConfiguration;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * S3Session: one worker's S3 client and the few threads that talk to the object store.
 *
 * <p>The worker's main thread is a PostgreSQL backend with PostgreSQL's signal handlers. A thread
 * inherits its creator's signal mask, so every thread that could ever run here is started in the
 * constructor (the upload pool, prestarted), which the C side calls with PostgreSQL's signals
 * blocked; after that, every request, the main thread's included, runs on the pool, so that lazily
 * created threads (the SDK's timeout scheduler, the JDK's HTTP keep-alive timer) are born there
 * too. The main thread only waits.
 *
 * <p>The SDK client is built on the pool too, as the constructor's first task: a worker's main
 * thread meanwhile sets up its Parquet writer, and requests submitted earlier than the client is
 * ready (worker 0's checks of the target, S3Export.startChecks) wait for it on the pool. A client
 * that cannot be built fails each request with the reason. The exit path's client, with short
 * timeouts (forCleanup), is built only when an exit path first sends a request. A plain-http
 * endpoint gets its connections straight from the JDK (httpClient(URI)): the SDK's default
 * transport sets up TLS when it is built, which such an endpoint never uses and which costs a small
 * export more than anything else the client does before its first request.
 *
 * <p>Transient failures (HTTP 5xx, throttling, a reset or refused connection, a timeout) are
 * retried by the SDK's standard retry strategy with exponential backoff and jitter, up to
 * max_attempts attempts; what is left is a persistent failure, which S3Failure turns into a message
 * naming the bucket and the cause.
 */
public final class S3Session implements AutoCloseable {
  // The region S3-compatible servers expect when neither the call nor the chain names one.
  private static final Region FALLBACK_REGION = Region.US_EAST_1;

  // The exit path's requests: a short deadline, one retry (DESIGN.md, "Failure at any point").
  private static final int CLEANUP_ATTEMPTS = 2;
  private static final int CLEANUP_CALL_TIMEOUT_MILLIS = 10_000;

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(60);

  private final S3Settings settings;
  private final Transport http;
  private final Future<S3Client> built;
  private final CleanupClient quick;
  private final Supplier<S3Client> client;
  private final ThreadPoolExecutor pool;
  private final S3Faults faults;
  private final boolean owner;

  public S3Session(S3Settings settings) {
    this(settings, null);
  }

  /**
   * A session that sends its requests through {@code httpClient}, which it closes; null: through
   * the transport httpClient(URI) picks for the endpoint.
   */
  S3Session(S3Settings settings, SdkHttpClient httpClient) {
    this.settings = requireNonNull(settings, "settings is null");
    this.http = new Transport(settings, httpClient);
    this.pool = startPool(settings.uploadsInFlight + 1);
    this.faults = new S3Faults();
    this.built =
        pool.submit(
            () ->
                buildClient(
                    settings, http, settings.maxAttempts, settings.callTimeoutMillis, faults));
    this.quick = new CleanupClient(settings, http, faults);
    this.client = () -> awaitBuilt(built);
    this.owner = true;
  }

  /** A view of a session that shares its threads and clients and closes nothing. */
  private S3Session(S3Session of, Supplier<S3Client> client) {
    this.settings = of.settings;
    this.pool = of.pool;
    this.faults = of.faults;
    this.http = of.http;
    this.built = of.built;
    this.quick = of.quick;
    this.client = client;
    this.owner = false;
  }

  /**
   * The same session with short timeouts and one retry, for a worker's exit path: cleanup must not
   * hold up the leader, which waits for the worker, for the minutes a dead endpoint can take.
   */
  public S3Session forCleanup() {
    return new S3Session(this, quick);
  }

  /** Fault injection for the failure tests: the fault of {@code point} from now on (S3Faults). */
  void injectFault(String point) {
    if (point.equals(S3FaultPoints.S3_SMALL_UPLOADS)) {
      settings.partBytes = S3Settings.MIN_PART_BYTES;
      settings.maxParts = 3;
      return;
    }
    faults.inject(point);
  }

  public S3Settings settings() {
    return settings;
  }

  /** Checks up front that the bucket exists and these credentials reach it. */
  public void probe(String bucket) throws IOException {
    await(probeLater(bucket));
  }

  /** probe's request, sent on the pool; await() gives its outcome. */
  public Future<?> probeLater(String bucket) {
    return submit(bucket, null, () -> client.get().headBucket(b -> b.bucket(bucket)));
  }

  /** Starts a multipart upload of {@code key}; returns its upload id. */
  public String createUpload(String bucket, String key) throws IOException {
    return run(
        bucket,
        key,
        () ->
            client
                .get()
                .createMultipartUpload(
                    b -> b.bucket(bucket).key(key).contentType("application/vnd.apache.parquet"))
                .uploadId());
  }

  /** Starts uploading bytes 0..length-1 of {@code data} as part {@code number}; does not wait. */
  Future<CompletedPart> uploadPart(
      String bucket, String key, String uploadId, int number, byte[] data, int length) {
    return pool.submit(
        () -> {
          try {
            UploadPartResponse response =
                client
                    .get()
                    .uploadPart(
                        b ->
                            b.bucket(bucket)
                                .key(key)
                                .uploadId(uploadId)
                                .partNumber(number)
                                .contentLength((long) length),
                        RequestBody.fromContentProvider(
                            () -> new ByteArrayInputStream(data, 0, length),
                            length,
                            "application/octet-stream"));
            return CompletedPart.builder().partNumber(number).eTag(response.eTag()).build();
          } catch (SdkException e) {
            throw S3Failure.of(bucket, key, e);
          }
        });
  }

  /** Waits for a request started by uploadPart or a ...Later method; failures as from any other. */
  static <T> T await(Future<T> request) throws IOException {
    return get(request);
  }

  /** Makes the upload's object visible under its key. */
  public void complete(String bucket, String key, String uploadId, List<CompletedPart> parts)
      throws IOException {
    run(
        bucket,
        key,
        () ->
            client
                .get()
                .completeMultipartUpload(
                    b ->
                        b.bucket(bucket)
                            .key(key)
                            .uploadId(uploadId)
                            .multipartUpload(m -> m.parts(parts))));
  }

  /**
   * Aborts a pending upload; an upload that no longer exists counts as aborted. Returns whether it
   * was still pending.
   */
  public boolean abort(String bucket, String key, String uploadId) throws IOException {
    return run(
        bucket,
        key,
        () -> {
          try {
            client.get().abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
            return true;
          } catch (NoSuchUploadException e) {
            // Already aborted or completed: nothing of it is pending any more.
            return false;
          } catch (S3Exception e) {
            if (e.statusCode() != 404) {
              throw e;
            }
            return false;
          }
        });
  }

  /** Up to {@code limit} keys under {@code prefix}, in key order. */
  public List<String> listKeys(String bucket, String prefix, int limit) throws IOException {
    return await(listKeysLater(bucket, prefix, limit));
  }

  /** listKeys' requests, sent on the pool; await() gives their outcome. */
  public Future<List<String>> listKeysLater(String bucket, String prefix, int limit) {
    return submit(
        bucket,
        null,
        () -> {
          List<String> keys = new ArrayList<>();
          String token = null;
          do {
            String from = token;
            ListObjectsV2Response page =
                client
                    .get()
                    .listObjectsV2(
                        b ->
                            b.bucket(bucket)
                                .prefix(prefix)
                                .continuationToken(from)
                                .maxKeys(Math.min(1000, limit - keys.size())));
            for (S3Object object : page.contents()) {
              keys.add(object.key());
            }
            token = page.isTruncated() ? page.nextContinuationToken() : null;
          } while (token != null && keys.size() < limit);
          return keys;
        });
  }

  /** Pending multipart uploads under {@code prefix}, as {key, uploadId} pairs. */
  public List<String[]> listUploads(String bucket, String prefix) throws IOException {
    List<String[]> uploads = new ArrayList<>();
    for (MultipartUpload upload : pendingUploads(bucket, prefix)) {
      uploads.add(new String[] {upload.key(), upload.uploadId()});
    }
    return uploads;
  }

  /**
   * Pending multipart uploads of exactly {@code key}, as upload id to the time the server says it
   * was initiated (null if it does not say).
   */
  public Map<String, Instant> uploadsOf(String bucket, String key) throws IOException {
    Map<String, Instant> uploads = new LinkedHashMap<>();
    for (MultipartUpload upload : pendingUploads(bucket, key)) {
      if (upload.key().equals(key)) {
        uploads.put(upload.uploadId(), upload.initiated());
      }
    }
    return uploads;
  }

  private List<MultipartUpload> pendingUploads(String bucket, String prefix) throws IOException {
    return run(
        bucket,
        null,
        () -> {
          List<MultipartUpload> uploads = new ArrayList<>();
          String keyMarker = null;
          String idMarker = null;
          boolean more;
          do {
            String k = keyMarker;
            String u = idMarker;
            ListMultipartUploadsResponse page =
                client
                    .get()
                    .listMultipartUploads(
                        b -> b.bucket(bucket).prefix(prefix).keyMarker(k).uploadIdMarker(u));
            uploads.addAll(page.uploads());
            more = Boolean.TRUE.equals(page.isTruncated());
            keyMarker = page.nextKeyMarker();
            idMarker = page.nextUploadIdMarker();
          } while (more);
          return uploads;
        });
  }

  /**
   * Deletes these keys, several at a time; a key that does not exist counts as deleted. One
   * DeleteObject per key rather than DeleteObjects, which S3 makes carry a body checksum that the
   * SDK now sends as x-amz-checksum-crc32, a header S3Proxy and other S3-compatible servers answer
   * with 501 Not Implemented; an export has few objects.
   */
  public void delete(String bucket, List<String> keys) throws IOException {
    List<Future<Object>> deletes = new ArrayList<>();
    for (String key : keys) {
      deletes.add(
          pool.submit(
              () -> {
                try {
                  return client.get().deleteObject(b -> b.bucket(bucket).key(key));
                } catch (SdkException e) {
                  throw S3Failure.of(bucket, key, e);
                }
              }));
    }
    IOException first = null;
    for (Future<Object> delete : deletes) {
      try {
        get(delete);
      } catch (IOException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** A small object's bytes and its ETag. */
  public record Fetched(byte[] bytes, String eTag) {}

  /** Writes a small object in one request. */
  public void put(String bucket, String key, byte[] data, String contentType) throws IOException {
    putIf(bucket, key, data, contentType, null, null);
  }

  /**
   * Writes a small object (the _SUCCESS manifest) only if {@code key} holds no object, or, with
   * {@code ifMatch}, only if it holds the object of that ETag (DESIGN.md, "The ledger file"): a
   * refused condition is an S3Failure of status 412, and nothing is written. A server that answers
   * 501 Not Implemented to the condition gets the plain PUT, as one that ignores it does. Returns
   * the new object's ETag.
   */
  public String putConditionally(
      String bucket, String key, byte[] data, String contentType, String ifMatch)
      throws IOException {
    try {
      return ifMatch != null
          ? putIf(bucket, key, data, contentType, ifMatch, null)
          : putIf(bucket, key, data, contentType, null, "*");
    } catch (S3Failure e) {
      if (e.status() != 501) {
        throw e;
      }
      return putIf(bucket, key, data, contentType, null, null);
    }
  }

  private String putIf(
      String bucket,
      String key,
      byte[] data,
      String contentType,
      String ifMatch,
      String ifNoneMatch)
      throws IOException {
    return run(
        bucket,
        key,
        () ->
            client
                .get()
                .putObject(
                    b ->
                        b.bucket(bucket)
                            .key(key)
                            .contentType(contentType)
                            .ifMatch(ifMatch)
                            .ifNoneMatch(ifNoneMatch),
                    RequestBody.fromBytes(data))
                .eTag());
  }

  /** A small object's bytes, or empty if there is no such key. */
  public Optional<byte[]> get(String bucket, String key) throws IOException {
    return fetch(bucket, key).map(Fetched::bytes);
  }

  /** A small object's bytes and ETag, or empty if there is no such key. */
  public Optional<Fetched> fetch(String bucket, String key) throws IOException {
    return run(
        bucket,
        key,
        () -> {
          try {
            ResponseBytes<GetObjectResponse> object =
                client.get().getObjectAsBytes(b -> b.bucket(bucket).key(key));
            return Optional.of(new Fetched(object.asByteArray(), object.response().eTag()));
          } catch (NoSuchKeyException e) {
            return Optional.empty();
          }
        });
  }

  /**
   * Closes the clients, the threads and the transport. Waits for the client's build first (it sends
   * nothing, so it ends), so that no build is left running.
   */
  @Override
  public void close() {
    if (!owner) {
      return;
    }
    S3Client main = null;
    try {
      main = built.get();
    } catch (ExecutionException | CancellationException e) {
      // Never built: nothing of it to close.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    pool.shutdownNow();
    if (main != null) {
      main.close();
    }
    quick.close();
    http.close();
  }

  /** The client {@code future} builds; the reason, if it could not be built. */
  private static S3Client awaitBuilt(Future<S3Client> future) {
    try {
      return get(future);
    } catch (IOException e) {
      // Building sends nothing: only an interrupted wait ends here.
      throw new UncheckedIOException(e);
    }
  }

  /** The exit path's client (forCleanup), built when it first sends a request. */
  private static final class CleanupClient implements Supplier<S3Client> {
    private final S3Settings settings;
    private final Transport http;
    private final S3Faults faults;
    private S3Client client;

    CleanupClient(S3Settings settings, Transport http, S3Faults faults) {
      this.settings = settings;
      this.http = http;
      this.faults = faults;
    }

    @Override
    public synchronized S3Client get() {
      if (client == null) {
        client = buildClient(settings, http, CLEANUP_ATTEMPTS, CLEANUP_CALL_TIMEOUT_MILLIS, faults);
      }
      return client;
    }

    synchronized void close() {
      if (client != null) {
        client.close();
      }
    }
  }

  private <T> T run(String bucket, String key, Callable<T> call) throws IOException {
    return get(submit(bucket, key, call));
  }

  private <T> Future<T> submit(String bucket, String key, Callable<T> call) {
    return pool.submit(
        () -> {
          try {
            return call.call();
          } catch (SdkException e) {
            throw S3Failure.of(bucket, key, e);
          }
        });
  }

  private static <T> T get(Future<T> future) throws IOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the object store");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException) {
        throw (IOException) cause;
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IOException(cause);
    }
  }

  /** The SDK's default transport over HttpURLConnection, with this session's timeouts. */
  static SdkHttpClient httpClient() {
    return UrlConnectionHttpClient.builder()
        .connectionTimeout(CONNECT_TIMEOUT)
        .socketTimeout(SOCKET_TIMEOUT)
        .build();
  }

  /**
   * The transport for {@code endpoint} (null: AWS's, which the SDK resolves). A plain-http endpoint
   * reached without a proxy gets its connections as the SDK's default opens them for it (the JDK's
   * HttpURLConnection, the same timeouts), without the TLS set-up the default does when it is
   * built; anything else, or any proxy setting, gets the default.
   */
  static SdkHttpClient httpClient(URI endpoint) {
    if (endpoint != null
        && "http".equalsIgnoreCase(endpoint.getScheme())
        && ProxyConfiguration.builder().build().host() == null) {
      return UrlConnectionHttpClient.create(S3Session::plainConnection);
    }
    return httpClient();
  }

  private static HttpURLConnection plainConnection(URI uri) {
    try {
      HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
      connection.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
      connection.setReadTimeout((int) SOCKET_TIMEOUT.toMillis());
      return connection;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The endpoint and the transport, found and made by the first client built (on the pool), once;
   * closed by close().
   */
  private static final class Transport {
    private final S3Settings settings;
    private SdkHttpClient client;
    private URI endpoint;
    private boolean resolved;

    Transport(S3Settings settings, SdkHttpClient given) {
      this.settings = settings;
      this.client = given;
    }

    /** The endpoint requests go to; null when the SDK resolves AWS's. */
    synchronized URI endpoint() {
      if (!resolved) {
        endpoint = settings.endpoint != null ? settings.endpoint : chainEndpoint(settings.profile);
        resolved = true;
      }
      return endpoint;
    }

    synchronized SdkHttpClient get() {
      if (client == null) {
        client = httpClient(endpoint());
      }
      return client;
    }

    synchronized void close() {
      if (client != null) {
        client.close();
      }
    }
  }

  private static ThreadPoolExecutor startPool(int threads) {
    AtomicInteger count = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "pep-s3-" + count.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.prestartAllCoreThreads();
    return pool;
  }

  private static S3Client buildClient(
      S3Settings settings,
      Transport transport,
      int maxAttempts,
      int callTimeoutMillis,
      S3Faults faults) {
    URI endpoint = transport.endpoint();
    S3ClientBuilder builder =
        S3Client.builder()
            .httpClient(transport.get())
            .region(region(settings, endpoint))
            .credentialsProvider(credentials(settings))
            .forcePathStyle(settings.pathStyleFor(endpoint))
            .overrideConfiguration(
                c -> {
                  c.retryStrategy(
                      AwsRetryStrategy.standardRetryStrategy().toBuilder()
                          .maxAttempts(maxAttempts)
                          .build());
                  c.apiCallTimeout(Duration.ofMillis(callTimeoutMillis));
                  c.addExecutionInterceptor(faults);
                  if (settings.profile != null) {
                    c.defaultProfileName(settings.profile);
                  }
                });
    if (settings.endpoint != null) {
      builder.endpointOverride(settings.endpoint);
    }
    if (endpoint != null && "http".equalsIgnoreCase(endpoint.getScheme())) {
      // Without TLS the SDK signs every payload. aws-chunked, its default for uploads, signs
      // one 128 KiB chunk at a time; a part is a byte[] of known length, so one SHA-256 over it
      // signs it just as well, and the server gets a plain body with a Content-Length. https
      // keeps the SDK's defaults.
      builder.serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build());
    }
    if (settings.checksumWhenRequired) {
      builder.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED);
      builder.responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }
    return builder.build();
  }

  private static AwsCredentialsProvider credentials(S3Settings settings) {
    if (settings.accessKeyId != null) {
      return StaticCredentialsProvider.create(
          settings.sessionToken != null
              ? AwsSessionCredentials.create(
                  settings.accessKeyId, settings.secretAccessKey, settings.sessionToken)
              : AwsBasicCredentials.create(settings.accessKeyId, settings.secretAccessKey));
    }
    DefaultCredentialsProvider.Builder chain = DefaultCredentialsProvider.builder();
    if (settings.profile != null) {
      chain.profileName(settings.profile);
    }
    return chain.build();
  }

  private static Region region(S3Settings settings, URI endpoint) {
    if (settings.region != null) {
      return Region.of(settings.region);
    }
    // An S3-compatible endpoint has no EC2 metadata service behind it: asking would only wait
    // for a connection timeout. AWS itself gets the whole chain.
    AwsRegionProvider chain;
    if (endpoint != null) {
      chain =
          new AwsRegionProviderChain(
              new SystemSettingsRegionProvider(),
              settings.profile == null
                  ? new AwsProfileRegionProvider()
                  : new AwsProfileRegionProvider(
                      ProfileFile::defaultProfileFile, settings.profile));
    } else {
      DefaultAwsRegionProviderChain.Builder full = DefaultAwsRegionProviderChain.builder();
      if (settings.profile != null) {
        full.profileName(settings.profile);
      }
      chain = full.build();
    }
    try {
      return chain.getRegion();
    } catch (SdkException e) {
      if (endpoint != null) {
        return FALLBACK_REGION;
      }
      throw new IllegalArgumentException(
          "no region for the object store: set one in the foreign server, AWS_REGION or the"
              + " profile");
    }
  }

  /**
   * The endpoint the SDK will use when none is given, as far as path-style addressing depends on
   * it: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, then the profile's endpoint_url.
   */
  private static URI chainEndpoint(String profile) {
    for (String name : new String[] {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"}) {
      String value = System.getenv(name);
      if (value != null && !value.isBlank()) {
        return URI.create(value.trim());
      }
    }
    String name =
        profile != null ? profile : System.getenv().getOrDefault("AWS_PROFILE", "default");
    try {
      return ProfileFile.defaultProfileFile()
          .profile(name)
          .flatMap(p -> p.property("endpoint_url"))
          .map(v -> URI.create(v.trim()))
          .orElse(null);
    } catch (RuntimeException e) {
      // An unreadable profile file is the SDK's to report when it needs credentials from it.
      return null;
    }
  }
}
