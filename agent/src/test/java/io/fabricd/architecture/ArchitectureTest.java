package io.fabricd.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaParameterizedType;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The layering of fabricd's main code (docs/architecture.md), checked on every build. Maven's module
 * dependencies keep a module from importing one it does not depend on; these rules also hold what
 * test-scope dependencies and the packages inside a module would let slip. The probes packages'
 * own order is in probes' PackageLayersTest.
 */
class ArchitectureTest {
    static final JavaClasses MAIN = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // in a full build a module's test classes come as its test jar (collectors' fixtures), not as test-classes/
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("io.fabricd");

    private static final String[] ABOVE_MODEL = {"io.fabricd.collectors..", "io.fabricd.diagnosis..", "io.fabricd.probes..",
        "io.fabricd.exporters..", "io.fabricd.preflight..", "io.fabricd.gate..", "io.fabricd.agent..", "io.fabricd.natives..", "io.fabricd.http..", "io.fabricd.topology.."};

    @Test
    void theModelImportsNothingElseOfFabricd() {
        noClasses().that().resideInAPackage("io.fabricd.model..").should().dependOnClassesThat().resideInAnyPackage(ABOVE_MODEL)
                .because("the model is the vocabulary every part shares: records and pure functions").check(MAIN);
    }

    @Test
    void theHttpServerKnowsNoFeatureOfFabricd() {
        noClasses().that().resideInAPackage("io.fabricd.http..").should().dependOnClassesThat(
                        JavaClass.Predicates.resideInAPackage("io.fabricd..").and(JavaClass.Predicates.resideOutsideOfPackage("io.fabricd.http..")))
                .because("the HTTP server and its defences serve the routes they are given: fabricd's paths, metric names and "
                        + "request signatures are the agent's").check(MAIN);
    }

    @Test
    void theNativeBindingsImportNothingElseOfFabricd() {
        noClasses().that().resideInAPackage("io.fabricd.natives..").should().dependOnClassesThat()
                .resideInAnyPackage("io.fabricd.model..", "io.fabricd.collectors..", "io.fabricd.diagnosis..",
                        "io.fabricd.probes..", "io.fabricd.exporters..", "io.fabricd.preflight..", "io.fabricd.gate..", "io.fabricd.agent..",
                        "io.fabricd.topology..")
                .check(MAIN);
    }

    @Test
    void theTopologySourcesReadTextAndLabelsOnly() {
        noClasses().that().resideInAPackage("io.fabricd.topology..").should().dependOnClassesThat()
                .resideInAnyPackage("io.fabricd.collectors..", "io.fabricd.diagnosis..", "io.fabricd.probes..", "io.fabricd.exporters..",
                        "io.fabricd.gate..", "io.fabricd.agent..", "io.fabricd.natives..", "io.fabricd.http..")
                .because("where a host sits is parsed from files and Node labels into the model's placements; the agent hands in "
                        + "the labels it reads").check(MAIN);
    }

    @Test
    void theDiagnosisJudgesModelsOnly() {
        noClasses().that().resideInAPackage("io.fabricd.diagnosis..").should().dependOnClassesThat()
                .resideInAnyPackage("io.fabricd.collectors..", "io.fabricd.probes..", "io.fabricd.exporters..",
                        "io.fabricd.preflight..", "io.fabricd.gate..", "io.fabricd.agent..", "io.fabricd.natives..")
                .because("checks are functions of host models and probe results, whoever made them").check(MAIN);
    }

    @Test
    void thePreflightGateDecidesOnWhatItIsGiven() {
        noClasses().that().resideInAPackage("io.fabricd.preflight..").should().dependOnClassesThat()
                .resideInAnyPackage("io.fabricd.collectors..", "io.fabricd.diagnosis..", "io.fabricd.probes..", "io.fabricd.exporters..",
                        "io.fabricd.gate..", "io.fabricd.agent..", "io.fabricd.natives..")
                .because("the gate is a function of the nodes' answers and the measurements; the agent fetches them").check(MAIN);
    }

    @Test
    void theGateRunAsksAgentsAndKnowsNoneOfTheirInsides() {
        noClasses().that().resideInAPackage("io.fabricd.gate..").should().dependOnClassesThat()
                .resideInAnyPackage("io.fabricd.agent..", "io.fabricd.diagnosis..", "io.fabricd.exporters..")
                .because("the gate's fleet run talks to agents over the wire format only; the agent's answers and its CLI use the gate")
                .check(MAIN);
    }

    @Test
    void exportersTellModelsAndFindingsOnly() {
        noClasses().that().resideInAPackage("io.fabricd.exporters..").should().dependOnClassesThat()
                .resideInAnyPackage("io.fabricd.collectors..", "io.fabricd.probes..", "io.fabricd.preflight..", "io.fabricd.gate..",
                        "io.fabricd.agent..", "io.fabricd.natives..", "io.fabricd.topology..")
                .check(MAIN);
    }

    @Test
    void probesMeasureAndDoNotJudge() {
        noClasses().that().resideInAPackage("io.fabricd.probes..").should().dependOnClassesThat()
                .resideInAnyPackage("io.fabricd.collectors..", "io.fabricd.diagnosis..", "io.fabricd.exporters..", "io.fabricd.preflight..",
                        "io.fabricd.gate..", "io.fabricd.agent..", "io.fabricd.topology..")
                .because("probes hand their results to the diagnosis, which judges them like everything else").check(MAIN);
    }

    @Test
    void collectorsOnlyRead() {
        noClasses().that().resideInAPackage("io.fabricd.collectors..").should().dependOnClassesThat()
                .resideInAnyPackage("io.fabricd.diagnosis..", "io.fabricd.probes..", "io.fabricd.exporters..", "io.fabricd.preflight..",
                        "io.fabricd.gate..", "io.fabricd.agent..", "io.fabricd.topology..")
                .check(MAIN);
    }

    @Test
    void theDoorToTheHostKnowsNoStage() {
        noClasses().that().resideInAnyPackage("io.fabricd.collectors.source..", "io.fabricd.collectors.kernel..")
                .should().dependOnClassesThat().resideInAnyPackage("io.fabricd.collectors", "io.fabricd.collectors.rdma..",
                        "io.fabricd.collectors.netdev..", "io.fabricd.collectors.verbs..", "io.fabricd.collectors.topology..",
                        "io.fabricd.collectors.pcie..", "io.fabricd.collectors.snapshot..", "io.fabricd.collectors.run..")
                .because("the host reader reads; the stages decide what to read and what it means").check(MAIN);
    }

    @ParameterizedTest
    @ValueSource(strings = {"model", "diagnosis", "agent"})
    void packagesWithinEachModuleAreFreeOfCycles(String module) {
        slices().matching("io.fabricd." + module + ".(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void collectorPackagesAreFreeOfCycles() {
        // source (files) and kernel (what is not a file) are the two halves of one door to the host:
        // a HostSource hands out its KernelQueries, which fail with HostReadException; kernel knows no source
        slices().matching("io.fabricd.collectors.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void noPackageCycles() {
        // each package its own slice, a module's root package included (io.fabricd.agent against io.fabricd.agent.cli)
        slices().matching("io.fabricd.(**)").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void libraryBindingsAreMadeInOnePlace() {
        noClasses().that().resideOutsideOfPackage("io.fabricd.natives..")
                .should().callMethodWhere(DescribedPredicate.describe("Native.load, Native.register or NativeLibrary.getInstance",
                        call -> call.getTargetOwner().isEquivalentTo(Native.class)
                                && (call.getName().equals("load") || call.getName().equals("register"))
                                || call.getTargetOwner().isEquivalentTo(NativeLibrary.class) && call.getName().equals("getInstance")))
                .because("the verbs shim and libc are bound once (io.fabricd.natives) and handed to their users").check(MAIN);
    }

    @Test
    void noMutableStaticState() {
        fields().that().areStatic().and().areDeclaredInClassesThat().resideInAPackage("io.fabricd..")
                .should().beFinal()
                .because("configuration, caches and once-only flags belong to an instance handed in, not to a global").check(MAIN);
    }

    @Test
    void collectionCoreClassesStaySmall() {
        classes().that().resideInAnyPackage("io.fabricd.collectors", "io.fabricd.collectors.run..", "io.fabricd.collectors.source..")
                .and().areNotRecords()
                .should(haveAtMostPublicMethods(15)).check(MAIN);
    }

    @Test
    void noMapsOfUntypedValues() {
        classes().that().resideInAPackage("io.fabricd..")
                .should(notHoldMapsOfObjects())
                .because("a record says what each value is; a Map<String, Object> leaves every reader to guess").check(MAIN);
    }

    private static ArchCondition<JavaClass> haveAtMostPublicMethods(int max) {
        return new ArchCondition<>("have at most " + max + " public methods") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                long n = c.getMethods().stream().filter(m -> m.getModifiers().contains(JavaModifier.PUBLIC)).count();
                if (n > max) {
                    events.add(SimpleConditionEvent.violated(c, c.getName() + " has " + n + " public methods"));
                }
            }
        };
    }

    /** No field, parameter or return type that is, or holds, a Map<String, Object>. */
    private static ArchCondition<JavaClass> notHoldMapsOfObjects() {
        return new ArchCondition<>("hold no Map<String, Object>") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                for (JavaField f : c.getFields()) {
                    report(f.getType(), f.getFullName(), events, c);
                }
                for (JavaCodeUnit u : c.getCodeUnits()) {
                    report(u.getReturnType(), u.getFullName() + " returns", events, c);
                    u.getParameterTypes().forEach(t -> report(t, u.getFullName() + " takes", events, c));
                }
            }

            private void report(JavaType t, String where, ConditionEvents events, JavaClass c) {
                if (untyped(t)) {
                    events.add(SimpleConditionEvent.violated(c, where + " " + t.getName() + ", a map of untyped values"));
                }
            }
        };
    }

    private static boolean untyped(JavaType t) {
        if (!(t instanceof JavaParameterizedType p)) {
            return false;
        }
        List<JavaType> args = p.getActualTypeArguments();
        return p.toErasure().isAssignableTo(Map.class) && args.get(0) instanceof JavaClass k && k.isEquivalentTo(String.class)
                && args.get(1) instanceof JavaClass v && v.isEquivalentTo(Object.class) || args.stream().anyMatch(ArchitectureTest::untyped);
    }
}
