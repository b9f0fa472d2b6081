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

# The classic tokenizer's Unicode 3.0 letters and digits (gen_classic.py).
set(TROVE_CLASSIC_TABLES ${CMAKE_BINARY_DIR}/generated/text_classic_tables.c)
add_custom_command(
  OUTPUT ${TROVE_CLASSIC_TABLES}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND ${TROVE_PYTHON3} ${CMAKE_SOURCE_DIR}/src/text/gen_classic.py ${TROVE_UCD_DIR} ${TROVE_CLASSIC_TABLES}
  DEPENDS ${CMAKE_SOURCE_DIR}/src/text/gen_classic.py ${TROVE_UCD_DIR}/DerivedAge.txt
          ${TROVE_UCD_DIR}/UnicodeData.txt
  COMMENT "Generating the classic tokenizer's Unicode 3.0 classes"
  VERBATIM)
target_sources(trove_text_obj PRIVATE ${TROVE_CLASSIC_TABLES})

# The uax_url_email tokenizer's top-level domains, from Debian's public
# suffix list (publicsuffix; gen_tlds.py).
set(TROVE_PUBLIC_SUFFIX_LIST "/usr/share/publicsuffix/public_suffix_list.dat" CACHE FILEPATH
    "Debian's public suffix list (publicsuffix)")
if(NOT EXISTS ${TROVE_PUBLIC_SUFFIX_LIST})
  message(FATAL_ERROR "${TROVE_PUBLIC_SUFFIX_LIST} not found: apt-get install publicsuffix")
endif()
set(TROVE_TLD_TABLE ${CMAKE_BINARY_DIR}/generated/text_tlds.c)
add_custom_command(
  OUTPUT ${TROVE_TLD_TABLE}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND ${TROVE_PYTHON3} ${CMAKE_SOURCE_DIR}/src/text/gen_tlds.py ${TROVE_PUBLIC_SUFFIX_LIST} ${TROVE_TLD_TABLE}
  DEPENDS ${CMAKE_SOURCE_DIR}/src/text/gen_tlds.py ${TROVE_PUBLIC_SUFFIX_LIST}
  COMMENT "Generating the top-level domains from ${TROVE_PUBLIC_SUFFIX_LIST}"
  VERBATIM)
target_sources(trove_text_obj PRIVATE ${TROVE_TLD_TABLE})

# The html_strip char filter's named character references (HTML 4.01's, from
# Python's html.entities; gen_entities.py).
set(TROVE_HTML_ENTITIES ${CMAKE_BINARY_DIR}/generated/text_html_entities.c)
add_custom_command(
  OUTPUT ${TROVE_HTML_ENTITIES}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND ${TROVE_PYTHON3} ${CMAKE_SOURCE_DIR}/src/text/gen_entities.py ${TROVE_HTML_ENTITIES}
  DEPENDS ${CMAKE_SOURCE_DIR}/src/text/gen_entities.py
  COMMENT "Generating the HTML character entities"
  VERBATIM)
target_sources(trove_text_obj PRIVATE ${TROVE_HTML_ENTITIES})

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
  # icu_folding's UTR #30 data: Lucene's utr30.nrm (ICU 53 format) rebuilt
  # for this ICU by gen_utr30.py with icu-devtools' gennorm2 and icupkg;
  # without them icu_folding and icu_analyzer answer 400 naming themselves.
  find_program(TROVE_GENNORM2 gennorm2 PATHS /usr/sbin /usr/bin)
  find_program(TROVE_ICUPKG icupkg PATHS /usr/sbin /usr/bin)
  if(TROVE_GENNORM2 AND TROVE_ICUPKG)
    set(TROVE_UTR30 ${CMAKE_BINARY_DIR}/generated/text_utr30.c)
    add_custom_command(
      OUTPUT ${TROVE_UTR30}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated/utr30
      COMMAND ${TROVE_PYTHON3} ${CMAKE_SOURCE_DIR}/src/text/gen_utr30.py ${TROVE_LUCENE_JAR_DIR}
              ${TROVE_GENNORM2} ${TROVE_ICUPKG} ${CMAKE_BINARY_DIR}/generated/utr30 ${TROVE_UTR30}
      DEPENDS ${CMAKE_SOURCE_DIR}/src/text/gen_utr30.py ${TROVE_LUCENE_ANALYSIS_JARS}
      COMMENT "Rebuilding Lucene's UTR #30 folding data for ICU"
      VERBATIM)
    target_sources(trove_text_obj PRIVATE ${TROVE_UTR30})
    target_compile_definitions(trove_text_obj PRIVATE TROVE_HAVE_UTR30=1)
    add_compile_definitions(TROVE_HAVE_UTR30=1) # the tests defined after this
  endif()
endif()
