# src/text/layer.cmake — build-time generation of the Unicode tables.
# Included by the top-level CMakeLists.txt after trove_text_obj exists.
# gen_unicode.py reads Debian's unicode-data (/usr/share/unicode) and writes
# the two-stage property table and the ASCII-folding table into the build
# directory; nothing generated is committed.
set(TROVE_UCD_DIR "/usr/share/unicode" CACHE PATH "Unicode Character Database (Debian unicode-data)")
find_program(TROVE_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT TROVE_PYTHON3)
  find_program(TROVE_PYTHON3 NAMES python3 REQUIRED)
endif()
if(NOT EXISTS ${TROVE_UCD_DIR}/auxiliary/WordBreakProperty.txt)
  message(FATAL_ERROR "Unicode data not found in ${TROVE_UCD_DIR}: apt-get install unicode-data")
endif()
set(TROVE_UC_TABLES ${CMAKE_BINARY_DIR}/generated/text_unicode_tables.c)
add_custom_command(
  OUTPUT ${TROVE_UC_TABLES}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND ${TROVE_PYTHON3} ${CMAKE_SOURCE_DIR}/src/text/gen_unicode.py ${TROVE_UCD_DIR} ${TROVE_UC_TABLES}
  DEPENDS ${CMAKE_SOURCE_DIR}/src/text/gen_unicode.py
          ${TROVE_UCD_DIR}/auxiliary/WordBreakProperty.txt
          ${TROVE_UCD_DIR}/emoji/emoji-data.txt
          ${TROVE_UCD_DIR}/LineBreak.txt
          ${TROVE_UCD_DIR}/Scripts.txt
          ${TROVE_UCD_DIR}/Blocks.txt
          ${TROVE_UCD_DIR}/UnicodeData.txt
  COMMENT "Generating Unicode tables from ${TROVE_UCD_DIR}"
  VERBATIM)
target_sources(trove_text_obj PRIVATE ${TROVE_UC_TABLES})

# Stop word lists and stemmer rules from Debian's Lucene 4.10 jars
# (liblucene4.10-java), embedded by gen_resources.py; see resources.c.
set(TROVE_LUCENE_JAR_DIR "/usr/share/java" CACHE PATH "Debian's Lucene 4.10 jars (liblucene4.10-java)")
file(GLOB TROVE_LUCENE_ANALYSIS_JARS ${TROVE_LUCENE_JAR_DIR}/lucene-analyzers-*-4.10*.jar)
# bn/et/lt stop words (not in 4.10) from Debian's Lucene 8 jar, unpacked from liblucene8-java
# (which conflicts with liblucene4.10-java) into this folder; empty: those lists are missing
set(TROVE_LUCENE8_JAR_DIR "" CACHE PATH "Debian's Lucene 8 jars (unpacked liblucene8-java), optional")
file(GLOB TROVE_LUCENE8_JARS ${TROVE_LUCENE8_JAR_DIR}/lucene-analyzers-common-8.*.jar)
if(NOT TROVE_LUCENE_ANALYSIS_JARS)
  message(FATAL_ERROR "Lucene 4.10 jars not found in ${TROVE_LUCENE_JAR_DIR}: apt-get install liblucene4.10-java")
endif()
set(TROVE_TEXT_RESOURCES ${CMAKE_BINARY_DIR}/generated/text_resources.c)
add_custom_command(
  OUTPUT ${TROVE_TEXT_RESOURCES}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND ${TROVE_PYTHON3} ${CMAKE_SOURCE_DIR}/src/text/gen_resources.py ${TROVE_LUCENE_JAR_DIR} ${TROVE_TEXT_RESOURCES} "${TROVE_LUCENE8_JAR_DIR}"
  DEPENDS ${CMAKE_SOURCE_DIR}/src/text/gen_resources.py ${TROVE_LUCENE_ANALYSIS_JARS} ${TROVE_LUCENE8_JARS}
  COMMENT "Embedding analysis resources from ${TROVE_LUCENE_JAR_DIR}"
  VERBATIM)
target_sources(trove_text_obj PRIVATE ${TROVE_TEXT_RESOURCES})

# ICU (Debian's libicu-dev), optional: the analysis-icu components
# (tf_icu.c) are built when it is found, and answer 400 naming themselves
# when it is not. TROVE_TEXT_LIBS carries it to libtrove and trove.pc.
pkg_check_modules(ICU IMPORTED_TARGET icu-uc icu-i18n)
option(TROVE_ICU "Build the analysis-icu components when ICU is found" ON)
if(ICU_FOUND AND TROVE_ICU)
  target_compile_definitions(trove_text_obj PUBLIC TROVE_HAVE_ICU=1)
  add_compile_definitions(TROVE_HAVE_ICU=1) # the targets defined after this (api, tests)
  target_link_libraries(trove_text_obj PUBLIC PkgConfig::ICU)
  target_link_libraries(trove_text PUBLIC PkgConfig::ICU)
  list(APPEND TROVE_TEXT_LIBS PkgConfig::ICU)
  set(TROVE_TEXT_PC_LIBS "${TROVE_TEXT_PC_LIBS} -licui18n -licuuc")
endif()
