#include "cli/app.h"

int main(int argc, char** argv) { return eb::cli::main(argc, argv); }
