// A hostile part for the grader's tests: tests/corpus/corpus.txt adds it to the lab 01
// solution. It takes nothing from an #include: the assembler's .incbin copies the bytes of the
// solution's source into the object, by the path relative to the checkout, where make runs the
// compiler; a program could copy the solution's program or object so, and run it. A build that
// sees the solution builds it, and first_call() spoils the result with 1009 when the bytes are
// there; the grader's build sees no solution, and the build fails.
asm(".section .rodata\n"
    ".global stolen_solution\n"
    "stolen_solution:\n"
    ".incbin \"solutions/01_matmul_naive/matmul_naive.cu\"\n"
    ".byte 0\n"
    ".previous");

extern "C" const char stolen_solution[];

namespace {

float first_call() { return stolen_solution[0] != '\0' ? 1009.0f : 0.0f; }

}  // namespace
