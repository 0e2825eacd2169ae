// Only a header: LLVMFuzzerRunDriver itself comes from the toolchain's libFuzzer.
#include "CFuzzDriver.h"
