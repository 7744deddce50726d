import com.marcnuri.helm.Helm;
import java.nio.file.Path;

/**
 * `helm package CHART_DIR --destination DEST` through helm-java (Helm's own Go code, as a native
 * library from Maven Central; no helm binary is needed). bin/dist runs it as a single-file program:
 * java -cp HELM_JAVA_CLASSPATH tools/ChartPackage.java CHART_DIR DEST
 */
public class ChartPackage {
    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: ChartPackage CHART_DIR DEST");
            System.exit(2);
        }
        new Helm(Path.of(args[0])).packageIt().withDestination(Path.of(args[1])).call();
    }
}
